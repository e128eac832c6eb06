

func.func @all_reduce_shape(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.all_reduce' op expects a result of shape [1, 8, 64], got [1, 8, 16]}}
  %0 = loom.all_reduce %x {group = "tp", group_size = 4} : tensor<1x8x64xbf16> -> tensor<1x8x16xbf16>
  return
}

