

func.func @reduce_scatter_size(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.reduce_scatter' op expects a result of shape [1, 2, 64], got [1, 4, 64]}}
  %0 = loom.reduce_scatter %x {group = "sp", group_size = 4, dim = 1} : tensor<1x8x64xbf16> -> tensor<1x4x64xbf16>
  return
}

