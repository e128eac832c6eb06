

func.func @experts_ep(%b: tensor<1x32x64xbf16>) {
  // expected-error @+1 {{'loom.moe_experts' op ep 3 does not divide the 8 experts}}
  %y = loom.moe_experts %b {experts = 8, top_k = 2, expert_inter = 224, tokens = 16, ep = 3} : tensor<1x32x64xbf16>
  return
}

