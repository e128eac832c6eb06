// RUN: loom-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the mixture-of-experts ops and latent attention, one
// per failure mode.

func.func @route_top_k(%h: tensor<1x16x64xbf16>) {
  // expected-error @+1 {{'loom.moe_route' op top_k 9 exceeds the 8 experts}}
  %b = loom.moe_route %h {experts = 8, top_k = 9} : tensor<1x16x64xbf16> -> tensor<1x144x64xbf16>
  return
}

// -----

func.func @route_capacity(%h: tensor<1x16x64xbf16>) {
  // expected-error @+1 {{'loom.moe_route' op dispatch buffer of 1 x 31 rows cannot hold the 16 routed tokens x top_k 2 = 32 copies}}
  %b = loom.moe_route %h {experts = 8, top_k = 2} : tensor<1x16x64xbf16> -> tensor<1x31x64xbf16>
  return
}

// -----

func.func @route_imbalance(%h: tensor<1x16x64xbf16>) {
  // expected-error @+1 {{'loom.moe_route' op imbalance 5.00 must be between 1 (uniform routing) and experts / top_k = 4.00}}
  %b = loom.moe_route %h {experts = 8, top_k = 2, imbalance = 5.0} : tensor<1x16x64xbf16> -> tensor<1x32x64xbf16>
  return
}

// -----

func.func @route_below_uniform(%h: tensor<1x16x64xbf16>) {
  // expected-error @+1 {{'loom.moe_route' op imbalance 0.50 must be between 1}}
  %b = loom.moe_route %h {experts = 8, top_k = 2, imbalance = 0.5} : tensor<1x16x64xbf16> -> tensor<1x32x64xbf16>
  return
}

// -----

func.func @route_hidden(%h: tensor<1x16x64xbf16>) {
  // expected-error @+1 {{'loom.moe_route' op expects the buffer's rows to be tokens of the input's hidden size and element type}}
  %b = loom.moe_route %h {experts = 8, top_k = 2} : tensor<1x16x64xbf16> -> tensor<1x32x32xbf16>
  return
}

// -----

func.func @route_rank(%h: tensor<16x64xbf16>) {
  // expected-error @+1 {{'loom.moe_route' op expects input of rank 3 [batch, seq, hidden]}}
  %b = loom.moe_route %h {experts = 8, top_k = 2} : tensor<16x64xbf16> -> tensor<1x32x64xbf16>
  return
}

// -----

func.func @route_zero_experts(%h: tensor<1x16x64xbf16>) {
  // expected-error @+1 {{'loom.moe_route' op attribute 'experts' failed to satisfy constraint}}
  %b = loom.moe_route %h {experts = 0, top_k = 2} : tensor<1x16x64xbf16> -> tensor<1x32x64xbf16>
  return
}

// -----

func.func @experts_ep(%b: tensor<1x32x64xbf16>) {
  // expected-error @+1 {{'loom.moe_experts' op ep 3 does not divide the 8 experts}}
  %y = loom.moe_experts %b {experts = 8, top_k = 2, expert_inter = 224, tokens = 16, ep = 3} : tensor<1x32x64xbf16>
  return
}

// -----

func.func @experts_top_k(%b: tensor<1x32x64xbf16>) {
  // expected-error @+1 {{'loom.moe_experts' op top_k 16 exceeds the 8 experts}}
  %y = loom.moe_experts %b {experts = 8, top_k = 16, expert_inter = 224, tokens = 16} : tensor<1x32x64xbf16>
  return
}

// -----

func.func @experts_integer(%b: tensor<1x32x64xi32>) {
  // expected-error @+1 {{'loom.moe_experts' op expects input to have a floating-point element type}}
  %y = loom.moe_experts %b {experts = 8, top_k = 2, expert_inter = 224, tokens = 16} : tensor<1x32x64xi32>
  return
}

// -----

func.func @combine_hidden(%b: tensor<1x32x64xbf16>) {
  // expected-error @+1 {{'loom.moe_combine' op expects rows of the result's hidden size and element type}}
  %y = loom.moe_combine %b : tensor<1x32x64xbf16> -> tensor<1x16x32xbf16>
  return
}

// -----

func.func @mla_q_width(%q: tensor<2x1x95xbf16>, %c: tensor<2x1x40xbf16>) {
  // expected-error @+1 {{'loom.latent_attention' op expects q of width heads * (qk_nope_head_dim + qk_rope_head_dim) = 96, got 95}}
  %a = loom.latent_attention %q, %c {heads = 4, kv_lora_rank = 32, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, causal} : tensor<2x1x95xbf16>, tensor<2x1x40xbf16> -> tensor<2x1x64xbf16>
  return
}

// -----

func.func @mla_latent_width(%q: tensor<2x1x96xbf16>, %c: tensor<2x1x32xbf16>) {
  // expected-error @+1 {{'loom.latent_attention' op expects a latent of width kv_lora_rank + qk_rope_head_dim = 40, got 32}}
  %a = loom.latent_attention %q, %c {heads = 4, kv_lora_rank = 32, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, causal} : tensor<2x1x96xbf16>, tensor<2x1x32xbf16> -> tensor<2x1x64xbf16>
  return
}

// -----

func.func @mla_result_width(%q: tensor<2x1x96xbf16>, %c: tensor<2x1x40xbf16>) {
  // expected-error @+1 {{'loom.latent_attention' op expects a result of width heads * v_head_dim = 64, got 48}}
  %a = loom.latent_attention %q, %c {heads = 4, kv_lora_rank = 32, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, causal} : tensor<2x1x96xbf16>, tensor<2x1x40xbf16> -> tensor<2x1x48xbf16>
  return
}

// -----

func.func @mla_sequence(%q: tensor<2x2x96xbf16>, %c: tensor<2x1x40xbf16>) {
  // expected-error @+1 {{'loom.latent_attention' op expects q, latent and result of the same batch and sequence}}
  %a = loom.latent_attention %q, %c {heads = 4, kv_lora_rank = 32, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, causal} : tensor<2x2x96xbf16>, tensor<2x1x40xbf16> -> tensor<2x2x64xbf16>
  return
}

// -----

func.func @mla_element(%q: tensor<2x1x96xbf16>, %c: tensor<2x1x40xf32>) {
  // expected-error @+1 {{'loom.latent_attention' op expects q, latent and result of one element type}}
  %a = loom.latent_attention %q, %c {heads = 4, kv_lora_rank = 32, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, causal} : tensor<2x1x96xbf16>, tensor<2x1x40xf32> -> tensor<2x1x64xbf16>
  return
}

// -----

func.func @experts_weight_type(%b: tensor<1x32x64xbf16>) {
  // expected-error @+1 {{'loom.moe_experts' op expects weight_type i8 or bf16, got 'f32'}}
  %y = loom.moe_experts %b {experts = 8, top_k = 2, expert_inter = 224, tokens = 16, weight_type = f32} : tensor<1x32x64xbf16>
  return
}

// -----

func.func @experts_int8_compute_bf16_weights(%b: tensor<1x32x64xbf16>) {
  // expected-error @+1 {{'loom.moe_experts' op computes int8 x int8 (compute_type = i8) but its weights are not int8 (weight_type = i8)}}
  %y = loom.moe_experts %b {experts = 8, top_k = 2, expert_inter = 224, tokens = 16, compute_type = i8} : tensor<1x32x64xbf16>
  return
}

// -----

func.func @mla_kv_type(%q: tensor<2x1x96xbf16>, %c: tensor<2x1x40xbf16>) {
  // expected-error @+1 {{'loom.latent_attention' op expects kv_type i8 or bf16, got 'f16'}}
  %a = loom.latent_attention %q, %c {heads = 4, kv_lora_rank = 32, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, causal, kv_type = f16} : tensor<2x1x96xbf16>, tensor<2x1x40xbf16> -> tensor<2x1x64xbf16>
  return
}
