

func.func @wrong_shape(%x: tensor<2x16x256xbf16>) {
  // expected-error @+1 {{'loom.all_to_all' op expects a result of shape [2, 64, 64], got [2, 16, 256]}}
  %0 = loom.all_to_all %x {group = "sp", group_size = 4, dim = 2, concat_dim = 1} : tensor<2x16x256xbf16> -> tensor<2x16x256xbf16>
  return
}

