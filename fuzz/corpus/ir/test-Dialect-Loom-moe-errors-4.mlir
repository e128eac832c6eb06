

func.func @route_hidden(%h: tensor<1x16x64xbf16>) {
  // expected-error @+1 {{'loom.moe_route' op expects the buffer's rows to be tokens of the input's hidden size and element type}}
  %b = loom.moe_route %h {experts = 8, top_k = 2} : tensor<1x16x64xbf16> -> tensor<1x32x32xbf16>
  return
}

