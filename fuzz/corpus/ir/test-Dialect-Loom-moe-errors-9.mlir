

func.func @experts_integer(%b: tensor<1x32x64xi32>) {
  // expected-error @+1 {{'loom.moe_experts' op expects input to have a floating-point element type}}
  %y = loom.moe_experts %b {experts = 8, top_k = 2, expert_inter = 224, tokens = 16} : tensor<1x32x64xi32>
  return
}

