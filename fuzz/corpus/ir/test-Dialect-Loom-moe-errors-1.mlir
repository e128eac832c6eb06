

func.func @route_capacity(%h: tensor<1x16x64xbf16>) {
  // expected-error @+1 {{'loom.moe_route' op dispatch buffer of 1 x 31 rows cannot hold the 16 routed tokens x top_k 2 = 32 copies}}
  %b = loom.moe_route %h {experts = 8, top_k = 2} : tensor<1x16x64xbf16> -> tensor<1x31x64xbf16>
  return
}

