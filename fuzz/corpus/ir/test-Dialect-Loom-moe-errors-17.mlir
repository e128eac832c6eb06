

func.func @experts_int8_compute_bf16_weights(%b: tensor<1x32x64xbf16>) {
  // expected-error @+1 {{'loom.moe_experts' op computes int8 x int8 (compute_type = i8) but its weights are not int8 (weight_type = i8)}}
  %y = loom.moe_experts %b {experts = 8, top_k = 2, expert_inter = 224, tokens = 16, compute_type = i8} : tensor<1x32x64xbf16>
  return
}

