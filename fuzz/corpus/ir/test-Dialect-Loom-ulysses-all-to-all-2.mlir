

func.func @same_dim(%x: tensor<2x16x256xbf16>) {
  // expected-error @+1 {{'loom.all_to_all' op concat_dim 2 must be another dimension of the rank-3 operand than dim 2}}
  %0 = loom.all_to_all %x {group = "sp", group_size = 4, dim = 2, concat_dim = 2} : tensor<2x16x256xbf16> -> tensor<2x16x256xbf16>
  return
}

