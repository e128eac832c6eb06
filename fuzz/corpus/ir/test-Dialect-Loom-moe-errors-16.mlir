

func.func @experts_weight_type(%b: tensor<1x32x64xbf16>) {
  // expected-error @+1 {{'loom.moe_experts' op expects weight_type i8 or bf16, got 'f32'}}
  %y = loom.moe_experts %b {experts = 8, top_k = 2, expert_inter = 224, tokens = 16, weight_type = f32} : tensor<1x32x64xbf16>
  return
}

