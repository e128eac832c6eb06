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

