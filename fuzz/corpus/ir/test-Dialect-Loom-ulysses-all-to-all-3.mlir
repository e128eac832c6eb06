

func.func @indivisible(%x: tensor<2x16x6xbf16>) {
  // expected-error @+1 {{'loom.all_to_all' op dimension 2 of size 6 is not divisible by group_size 4}}
  %0 = loom.all_to_all %x {group = "sp", group_size = 4, dim = 2, concat_dim = 1} : tensor<2x16x6xbf16> -> tensor<2x64x1xbf16>
  return
}
