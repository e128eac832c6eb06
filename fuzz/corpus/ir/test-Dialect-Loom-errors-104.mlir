

func.func @collective_missing_group(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{requires attribute 'group'}}
  %0 = loom.all_reduce %x {group_size = 4} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

