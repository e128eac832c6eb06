

func.func @linear_rank_mismatch(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.linear' op expects input and result of the same rank >= 2, got [1, 8, 64] and [8, 64]}}
  %0 = loom.linear q %x : tensor<1x8x64xbf16> -> tensor<8x64xbf16>
  return
}

