

func.func @experts_top_k(%b: tensor<1x32x64xbf16>) {
  // expected-error @+1 {{'loom.moe_experts' op top_k 16 exceeds the 8 experts}}
  %y = loom.moe_experts %b {experts = 8, top_k = 16, expert_inter = 224, tokens = 16} : tensor<1x32x64xbf16>
  return
}

