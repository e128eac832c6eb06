

func.func @add_not_suffix(%x: tensor<2x8x64xbf16>, %b: tensor<2x64xbf16>) {
  // expected-error @+1 {{'loom.add' op expects the rhs shape [2, 64] to equal or be a suffix of the lhs shape [2, 8, 64]}}
  %0 = loom.add %x, %b : tensor<2x8x64xbf16>, tensor<2x64xbf16>
  return
}

