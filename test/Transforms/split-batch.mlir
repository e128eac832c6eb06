// loom-split-batch: one data-parallel replica's share of the batch. Every
// dimension an op's sharding rule says holds the batch is divided by the
// replicas; the functions' arguments follow the ops that read them (through
// the layers they enter); a mixture of experts' dispatch buffer (every
// routed token's top_k copies) and its experts' tokens are recounted; the
// model's batch becomes the share. What does not hold the batch stays: the
// sequence, a decode step's cached tokens, a weight table, a bias.
// RUN: loom-opt %s -split-input-file -loom-split-batch=replicas=4 -verify-diagnostics | FileCheck %s
// RUN: loom-opt %s -split-input-file -loom-split-batch=replicas=4 | loom-opt -split-input-file | FileCheck %s
// One replica keeps the module as it is.
// RUN: loom-opt %s -split-input-file -loom-split-batch=replicas=1 | FileCheck %s --check-prefix=ONE
// ONE: batch = 8, seq = 16
// ONE: func.func @moe(%{{.*}}: tensor<8x16xi32>) -> tensor<8x16x100xbf16>

// 8 sequences of 16 tokens over 4 replicas: 2 each, 32 tokens, 64 copies.
// CHECK: loom.model = #loom.model<name = "moe", family = "mixtral", mode = prefill, batch = 2, seq = 16>
// CHECK: func.func @moe(%{{.*}}: tensor<2x16xi32>) -> tensor<2x16x100xbf16>
// CHECK: loom.embed %{{.*}} {vocab = 100 : i64} : tensor<2x16xi32> -> tensor<2x16x64xbf16>
// CHECK: loom.layer 0(%{{.*}}) {{.*}}: (tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16>
// CHECK: ^bb0(%{{.*}}: tensor<2x16x64xbf16>):
// CHECK: loom.rms_norm %{{.*}} : tensor<2x16x64xbf16>
// CHECK: loom.moe_route %{{.*}} {experts = 8 : i64, top_k = 2 : i64} : tensor<2x16x64xbf16> -> tensor<1x64x64xbf16>
// CHECK: loom.moe_experts %{{.*}} {expert_inter = 32 : i64, experts = 8 : i64, tokens = 32 : i64, top_k = 2 : i64} : tensor<1x64x64xbf16>
// CHECK: loom.moe_combine %{{.*}} : tensor<1x64x64xbf16> -> tensor<2x16x64xbf16>
// CHECK: loom.add %{{.*}}, %{{.*}} : tensor<2x16x64xbf16>, tensor<64xbf16>
// CHECK: loom.yield %{{.*}} : tensor<2x16x64xbf16>
// CHECK: loom.linear lm_head %{{.*}} : tensor<2x16x64xbf16> -> tensor<2x16x100xbf16>
// CHECK: return %{{.*}} : tensor<2x16x100xbf16>
module attributes {loom.model = #loom.model<name = "moe", family = "mixtral", mode = prefill, batch = 8, seq = 16>} {
  func.func @moe(%ids: tensor<8x16xi32>) -> tensor<8x16x100xbf16> {
    %x = loom.embed %ids {vocab = 100} : tensor<8x16xi32> -> tensor<8x16x64xbf16>
    %y = loom.layer 0(%x) {kind = "mixtral"} : (tensor<8x16x64xbf16>) -> tensor<8x16x64xbf16> {
    ^bb0(%h: tensor<8x16x64xbf16>):
      %n = loom.rms_norm %h : tensor<8x16x64xbf16>
      %r = loom.moe_route %n {experts = 8, top_k = 2} : tensor<8x16x64xbf16> -> tensor<1x256x64xbf16>
      %e = loom.moe_experts %r {expert_inter = 32, experts = 8, tokens = 128, top_k = 2} : tensor<1x256x64xbf16>
      %c = loom.moe_combine %e : tensor<1x256x64xbf16> -> tensor<8x16x64xbf16>
      %b = loom.param "bias" : tensor<64xbf16>
      %s = loom.add %c, %b : tensor<8x16x64xbf16>, tensor<64xbf16>
      loom.yield %s : tensor<8x16x64xbf16>
    }
    %l = loom.linear lm_head %y : tensor<8x16x64xbf16> -> tensor<8x16x100xbf16>
    return %l : tensor<8x16x100xbf16>
  }
}

// -----

// A decode step: one new token per sequence; the cache of 255 tokens per
// sequence is the attention's, and a function argument that enters a layer
// directly takes the split of the ops inside it.
// CHECK: loom.model = #loom.model<name = "step", family = "llama", mode = decode, batch = 1, seq = 255>
// CHECK: func.func @step(%{{.*}}: tensor<1x1x128xbf16>) -> tensor<1x1x128xbf16>
// CHECK: loom.attention {{.*}}cached = 255 : i64{{.*}} : tensor<1x1x128xbf16>, tensor<1x1x128xbf16> -> tensor<1x1x128xbf16>
module attributes {loom.model = #loom.model<name = "step", family = "llama", mode = decode, batch = 4, seq = 255>} {
  func.func @step(%x: tensor<4x1x128xbf16>) -> tensor<4x1x128xbf16> {
    %y = loom.layer 0(%x) {kind = "llama"} : (tensor<4x1x128xbf16>) -> tensor<4x1x128xbf16> {
    ^bb0(%h: tensor<4x1x128xbf16>):
      %a = loom.attention %h, %h, %h {heads = 2, kv_heads = 2, head_dim = 64, causal, cached = 255} : tensor<4x1x128xbf16>, tensor<4x1x128xbf16> -> tensor<4x1x128xbf16>
      loom.yield %a : tensor<4x1x128xbf16>
    }
    return %y : tensor<4x1x128xbf16>
  }
}

// -----

// A guided DiT's per-sample conditioning: class labels, timestep, the
// [B, F] linears and token-wise ops on them, the chunked modulation, and a
// reshape that keeps two rows per sample ([2B, F] -> [B, 2F]).
// CHECK: batch = 2, seq = 16, resolution = 64
// CHECK: func.func @dit(%{{.*}}: tensor<2x4x8x8xbf16>, %{{.*}}: tensor<2xf32>, %{{.*}}: tensor<2xi32>, %{{.*}}: tensor<4xf32>) -> tensor<2x8x8x8xbf16>
// CHECK: loom.patchify %{{.*}} {patch_size = 2 : i64} : tensor<2x4x8x8xbf16> -> tensor<2x16x32xbf16>
// CHECK: loom.embed %{{.*}} {vocab = 11 : i64} : tensor<2xi32> -> tensor<2x32xbf16>
// CHECK: loom.timestep_embed %{{.*}} : tensor<2xf32> -> tensor<2x16xbf16>
// CHECK: loom.linear cond %{{.*}} : tensor<2x16xbf16> -> tensor<2x32xbf16>
// CHECK: loom.timestep_embed %{{.*}} : tensor<4xf32> -> tensor<4x16xbf16>
// CHECK: loom.reshape %{{.*}} : tensor<4x16xbf16> -> tensor<2x32xbf16>
// CHECK: loom.add %{{.*}}, %{{.*}} : tensor<2x32xbf16>, tensor<2x32xbf16>
// CHECK: loom.linear modulation %{{.*}} : tensor<2x32xbf16> -> tensor<2x64xbf16>
// CHECK: loom.chunk %{{.*}} : tensor<2x64xbf16> -> tensor<2x32xbf16>, tensor<2x32xbf16>
// CHECK: loom.modulate %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x16x32xbf16>, tensor<2x32xbf16>
// CHECK: loom.unpatchify %{{.*}} {patch_size = 2 : i64} : tensor<2x16x32xbf16> -> tensor<2x8x8x8xbf16>
module attributes {loom.model = #loom.model<name = "dit", family = "dit", mode = diffusion, batch = 8, seq = 16, resolution = 64, steps = 50>} {
  func.func @dit(%latent: tensor<8x4x8x8xbf16>, %t: tensor<8xf32>, %labels: tensor<8xi32>, %res: tensor<16xf32>) -> tensor<8x8x8x8xbf16> {
    %x = loom.patchify %latent {patch_size = 2} : tensor<8x4x8x8xbf16> -> tensor<8x16x32xbf16>
    %y = loom.embed %labels {vocab = 11} : tensor<8xi32> -> tensor<8x32xbf16>
    %f = loom.timestep_embed %t : tensor<8xf32> -> tensor<8x16xbf16>
    %c = loom.linear cond %f : tensor<8x16xbf16> -> tensor<8x32xbf16>
    %rf = loom.timestep_embed %res : tensor<16xf32> -> tensor<16x16xbf16>
    %r = loom.reshape %rf : tensor<16x16xbf16> -> tensor<8x32xbf16>
    %s = loom.add %c, %r : tensor<8x32xbf16>, tensor<8x32xbf16>
    %cond = loom.add %s, %y : tensor<8x32xbf16>, tensor<8x32xbf16>
    %m = loom.linear modulation %cond : tensor<8x32xbf16> -> tensor<8x64xbf16>
    %m0, %m1 = loom.chunk %m : tensor<8x64xbf16> -> tensor<8x32xbf16>, tensor<8x32xbf16>
    %h = loom.modulate %x, %m0, %m1 : tensor<8x16x32xbf16>, tensor<8x32xbf16>
    %o = loom.unpatchify %h {patch_size = 2} : tensor<8x16x32xbf16> -> tensor<8x8x8x8xbf16>
    return %o : tensor<8x8x8x8xbf16>
  }
}
