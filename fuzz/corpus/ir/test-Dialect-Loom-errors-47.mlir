

func.func @mul_rhs_higher_rank(%x: tensor<8x64xbf16>, %b: tensor<2x8x64xbf16>) {
  // expected-error @+1 {{'loom.mul' op expects the rhs shape [2, 8, 64] to equal or be a suffix of the lhs shape [8, 64]}}
  %0 = loom.mul %x, %b : tensor<8x64xbf16>, tensor<2x8x64xbf16>
  return
}

