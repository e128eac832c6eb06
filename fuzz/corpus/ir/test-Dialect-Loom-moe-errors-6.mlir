

func.func @route_zero_experts(%h: tensor<1x16x64xbf16>) {
  // expected-error @+1 {{'loom.moe_route' op attribute 'experts' failed to satisfy constraint}}
  %b = loom.moe_route %h {experts = 0, top_k = 2} : tensor<1x16x64xbf16> -> tensor<1x32x64xbf16>
  return
}

