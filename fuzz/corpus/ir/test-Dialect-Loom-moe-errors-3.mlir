

func.func @route_below_uniform(%h: tensor<1x16x64xbf16>) {
  // expected-error @+1 {{'loom.moe_route' op imbalance 0.50 must be between 1}}
  %b = loom.moe_route %h {experts = 8, top_k = 2, imbalance = 0.5} : tensor<1x16x64xbf16> -> tensor<1x32x64xbf16>
  return
}

