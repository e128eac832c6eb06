

func.func @route_rank(%h: tensor<16x64xbf16>) {
  // expected-error @+1 {{'loom.moe_route' op expects input of rank 3 [batch, seq, hidden]}}
  %b = loom.moe_route %h {experts = 8, top_k = 2} : tensor<16x64xbf16> -> tensor<1x32x64xbf16>
  return
}

