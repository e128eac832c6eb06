// RUN: loom-opt %s -split-input-file --loom-shard-sequence="sp=4 mode=ring" | FileCheck %s
// RUN: loom-opt %s -split-input-file --loom-shard-heads=tp=2 --loom-shard-sequence="sp=2 mode=ring" | FileCheck %s --check-prefix=TP2

// Ring attention (Liu et al. 2023) on a DiT block of 2 heads of 64 over 96
// image tokens with a cross-attention to 8 text tokens, on v5e-4: sp = 4
// does not divide the 2 heads (Ulysses refuses it) but divides the tokens.
// Each chip keeps its block of 24 tokens through the whole layer: the
// self-attention becomes a loom.ring_attention over its block of q, k and v
// (all heads; the K/V blocks go round the 4 chips), and no all-to-all is
// left. The cross-attention's queries stay split, its text whole.

// CHECK: loom.parallel = #loom.parallel<sp = 4>
// CHECK: %[[S:.*]] = loom.local_shard %{{.*}} {dim = 1 : i64, group = "sp", group_size = 4 : i64} : tensor<1x96x128xbf16> -> tensor<1x24x128xbf16>
// CHECK: loom.layer 0(%[[S]], %{{.*}})
// CHECK: %[[Q:.*]] = loom.linear q {{.*}} : tensor<1x24x128xbf16> -> tensor<1x24x128xbf16>
// CHECK-NEXT: %[[R:.*]] = loom.ring_attention %[[Q]], %[[Q]], %[[Q]] {group = "sp", group_size = 4 : i64, head_dim = 64 : i64, heads = 2 : i64, kv_heads = 2 : i64} : tensor<1x24x128xbf16>, tensor<1x24x128xbf16> -> tensor<1x24x128xbf16>
// CHECK-NEXT: loom.linear o %[[R]] : tensor<1x24x128xbf16> -> tensor<1x24x128xbf16>
// CHECK-NOT: all_to_all
// CHECK: loom.attention {{.*}} {cross, head_dim = 64 : i64, heads = 2 : i64, kv_heads = 2 : i64} : tensor<1x24x128xbf16>, tensor<1x8x128xbf16> -> tensor<1x24x128xbf16>
// CHECK-NOT: loom.attention {{.*}} : tensor<1x96x

// With tp = 2 first, each chip's one head: the ring passes blocks of it.
// TP2: loom.parallel = #loom.parallel<tp = 2, sp = 2>
// TP2: loom.ring_attention {{.*}} {group = "sp", group_size = 2 : i64, head_dim = 64 : i64, heads = 1 : i64, kv_heads = 1 : i64} : tensor<1x48x64xbf16>, tensor<1x48x64xbf16> -> tensor<1x48x64xbf16>

module attributes {loom.model = #loom.model<name = "toy-dit", family = "dit", mode = diffusion, batch = 1, seq = 96, steps = 4>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  func.func @toy_dit(%x: tensor<1x96x128xbf16>, %txt: tensor<1x8x128xbf16>) -> tensor<1x96x128xbf16> {
    %0 = loom.layer 0 (%x, %txt) : (tensor<1x96x128xbf16>, tensor<1x8x128xbf16>) -> tensor<1x96x128xbf16> {
    ^bb0(%in: tensor<1x96x128xbf16>, %t: tensor<1x8x128xbf16>):
      %q = loom.linear q %in : tensor<1x96x128xbf16> -> tensor<1x96x128xbf16>
      %a = loom.attention %q, %q, %q {heads = 2, kv_heads = 2, head_dim = 64} : tensor<1x96x128xbf16>, tensor<1x96x128xbf16> -> tensor<1x96x128xbf16>
      %o = loom.linear o %a : tensor<1x96x128xbf16> -> tensor<1x96x128xbf16>
      %kt = loom.linear k %t : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
      %c = loom.attention %o, %kt, %kt {heads = 2, kv_heads = 2, head_dim = 64, cross} : tensor<1x96x128xbf16>, tensor<1x8x128xbf16> -> tensor<1x96x128xbf16>
      loom.yield %c : tensor<1x96x128xbf16>
    }
    return %0 : tensor<1x96x128xbf16>
  }
}

