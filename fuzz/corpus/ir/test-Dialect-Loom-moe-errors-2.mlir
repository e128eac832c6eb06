

func.func @route_imbalance(%h: tensor<1x16x64xbf16>) {
  // expected-error @+1 {{'loom.moe_route' op imbalance 5.00 must be between 1 (uniform routing) and experts / top_k = 4.00}}
  %b = loom.moe_route %h {experts = 8, top_k = 2, imbalance = 5.0} : tensor<1x16x64xbf16> -> tensor<1x32x64xbf16>
  return
}

