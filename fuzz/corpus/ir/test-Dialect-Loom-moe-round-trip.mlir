// RUN: loom-opt %s | loom-opt | FileCheck %s
// RUN: loom-opt %s --mlir-print-op-generic | loom-opt | FileCheck %s

// Round trip of the mixture-of-experts ops and multi-head latent
// attention, in a tiny Mixtral-style block and a tiny DeepSeek-V3-style one.

// CHECK-LABEL: func.func @tiny_mixtral_moe
// CHECK:         %[[BUF:.*]] = loom.moe_route %{{.*}} {experts = 8 : i64, top_k = 2 : i64} : tensor<1x16x64xbf16> -> tensor<1x32x64xbf16>
// CHECK:         %[[OUT:.*]] = loom.moe_experts %[[BUF]] {expert_inter = 224 : i64, experts = 8 : i64, tokens = 16 : i64, top_k = 2 : i64} : tensor<1x32x64xbf16>
// CHECK:         loom.moe_combine %[[OUT]] : tensor<1x32x64xbf16> -> tensor<1x16x64xbf16>
func.func @tiny_mixtral_moe(%h: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  %buf = loom.moe_route %h {experts = 8, top_k = 2} : tensor<1x16x64xbf16> -> tensor<1x32x64xbf16>
  %out = loom.moe_experts %buf {experts = 8, top_k = 2, expert_inter = 224, tokens = 16} : tensor<1x32x64xbf16>
  %y = loom.moe_combine %out : tensor<1x32x64xbf16> -> tensor<1x16x64xbf16>
  return %y : tensor<1x16x64xbf16>
}

// Expert-parallel form of one chip of four: each chip sends one group of
// rows to every chip and holds 2 of the 8 experts.
// CHECK-LABEL: func.func @expert_parallel_chip
// CHECK:         loom.moe_route %{{.*}} {experts = 8 : i64, imbalance = 1.500000e+00 : f64, shard = 4 : i64, shared_gate, top_k = 2 : i64}
// CHECK:         loom.moe_experts %{{.*}} {ep = 4 : i64, expert_inter = 224 : i64, experts = 8 : i64, loom.split = #loom.split<experts, 4>, tokens = 16 : i64, top_k = 2 : i64} : tensor<4x3x64xbf16>
func.func @expert_parallel_chip(%h: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  %buf = loom.moe_route %h {experts = 8, top_k = 2, imbalance = 1.5, shard = 4, shared_gate} : tensor<1x16x64xbf16> -> tensor<4x3x64xbf16>
  %in = loom.all_to_all %buf {group = "tp", group_size = 4, dim = 0} : tensor<4x3x64xbf16> -> tensor<4x3x64xbf16>
  %out = loom.moe_experts %in {experts = 8, top_k = 2, expert_inter = 224, tokens = 16, ep = 4, loom.split = #loom.split<experts, 4>} : tensor<4x3x64xbf16>
  %back = loom.all_to_all %out {group = "tp", group_size = 4, dim = 0} : tensor<4x3x64xbf16> -> tensor<4x3x64xbf16>
  %y = loom.moe_combine %back : tensor<4x3x64xbf16> -> tensor<1x16x64xbf16>
  return %y : tensor<1x16x64xbf16>
}

// MLA: q through a low-rank bottleneck, the cached latent of rank 32 plus a
// rope key of 8, 4 heads of nope 16 + rope 8 and v 16.
// CHECK-LABEL: func.func @tiny_mla
// CHECK:         loom.linear q_down
// CHECK:         loom.linear kv_down
// CHECK:         loom.latent_attention %{{.*}}, %{{.*}} {cached = 128 : i64, causal, heads = 4 : i64, kv_lora_rank = 32 : i64, qk_nope_head_dim = 16 : i64, qk_rope_head_dim = 8 : i64, v_head_dim = 16 : i64} : tensor<2x1x96xbf16>, tensor<2x1x40xbf16> -> tensor<2x1x64xbf16>
func.func @tiny_mla(%h: tensor<2x1x64xbf16>) -> tensor<2x1x64xbf16> {
  %qa = loom.linear q_down %h : tensor<2x1x64xbf16> -> tensor<2x1x24xbf16>
  %qn = loom.rms_norm %qa : tensor<2x1x24xbf16>
  %q = loom.linear q %qn : tensor<2x1x24xbf16> -> tensor<2x1x96xbf16>
  %c = loom.linear kv_down %h : tensor<2x1x64xbf16> -> tensor<2x1x40xbf16>
  %a = loom.latent_attention %q, %c {heads = 4, kv_lora_rank = 32, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, causal, cached = 128} : tensor<2x1x96xbf16>, tensor<2x1x40xbf16> -> tensor<2x1x64xbf16>
  %o = loom.linear o %a : tensor<2x1x64xbf16> -> tensor<2x1x64xbf16>
  return %o : tensor<2x1x64xbf16>
}

// int8 experts (weights and matmuls) and MLA with an int8 kv_b_proj and an
// int8 latent cache (loom-import --weights-dtype/--activations-dtype/--kv-dtype int8).
// CHECK-LABEL: func.func @int8_mixture
// CHECK:         loom.moe_experts %{{.*}} {compute_type = i8, expert_inter = 224 : i64, experts = 8 : i64, tokens = 16 : i64, top_k = 2 : i64, weight_type = i8} : tensor<1x32x64xbf16>
// CHECK:         loom.latent_attention %{{.*}}, %{{.*}} {cached = 128 : i64, causal, heads = 4 : i64, kv_lora_rank = 32 : i64, kv_type = i8, qk_nope_head_dim = 16 : i64, qk_rope_head_dim = 8 : i64, v_head_dim = 16 : i64, weight_type = i8}
func.func @int8_mixture(%b: tensor<1x32x64xbf16>, %q: tensor<2x1x96xbf16>, %c: tensor<2x1x40xbf16>) {
  %y = loom.moe_experts %b {experts = 8, top_k = 2, expert_inter = 224, tokens = 16, weight_type = i8, compute_type = i8} : tensor<1x32x64xbf16>
  %a = loom.latent_attention %q, %c {heads = 4, kv_lora_rank = 32, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, causal, cached = 128, weight_type = i8, kv_type = i8} : tensor<2x1x96xbf16>, tensor<2x1x40xbf16> -> tensor<2x1x64xbf16>
  return
}
