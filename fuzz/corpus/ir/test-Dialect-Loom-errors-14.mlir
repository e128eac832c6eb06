

func.func @linear_rank_one(%x: tensor<64xbf16>) {
  // expected-error @+1 {{'loom.linear' op expects input and result of the same rank >= 2, got [64] and [32]}}
  %0 = loom.linear q %x : tensor<64xbf16> -> tensor<32xbf16>
  return
}

