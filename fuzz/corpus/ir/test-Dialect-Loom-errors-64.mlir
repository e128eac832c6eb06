

func.func @slice_dim_range(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.slice' op expects input and result of the same rank with dim in range, got dim 3 for [1, 8, 64] -> [1, 8, 32]}}
  %0 = loom.slice %x {dim = 3, offset = 0} : tensor<1x8x64xbf16> -> tensor<1x8x32xbf16>
  return
}

