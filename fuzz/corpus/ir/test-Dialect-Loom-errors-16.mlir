

func.func @linear_leading_dims(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.linear' op expects input and result to agree on all but the last dimension, got [1, 8, 64] and [1, 4, 64]}}
  %0 = loom.linear o %x : tensor<1x8x64xbf16> -> tensor<1x4x64xbf16>
  return
}

