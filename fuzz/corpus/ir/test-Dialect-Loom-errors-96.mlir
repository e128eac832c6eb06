

func.func @reduce_scatter_not_divisible(%x: tensor<1x9x64xbf16>) {
  // expected-error @+1 {{'loom.reduce_scatter' op dimension 1 of size 9 is not divisible by group_size 2}}
  %0 = loom.reduce_scatter %x {group = "sp", group_size = 2, dim = 1} : tensor<1x9x64xbf16> -> tensor<1x4x64xbf16>
  return
}

