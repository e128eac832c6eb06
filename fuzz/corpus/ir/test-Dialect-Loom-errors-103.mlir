

func.func @collective_zero_group(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{attribute 'group_size' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = loom.all_reduce %x {group = "tp", group_size = 0} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

