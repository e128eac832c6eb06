// Ulysses (loom-shard-sequence sp = 2) on a LLaMA layer whose q, k and v
// are three projections: their exchanges from sequence shards to head
// shards are one combined all-to-all (one synchronisation and one set of
// hops for the three, as XLA's collective combiners issue them); the
// output's exchange back stays a single all-to-all.
// RUN: loom-opt %s --loom-shard-sequence=sp=2 | FileCheck %s

// CHECK: %[[Q:.*]] = loom.rope
// CHECK-NEXT: %[[K:.*]] = loom.rope
// CHECK-NEXT: %[[H:.*]]:3 = loom.combined_all_to_all %[[Q]], %[[K]], %{{.*}} {concat_dim = 1 : i64, dim = 2 : i64, group = "sp", group_size = 2 : i64} : (tensor<1x4x128xbf16>, tensor<1x4x64xbf16>, tensor<1x4x64xbf16>) -> (tensor<1x8x64xbf16>, tensor<1x8x32xbf16>, tensor<1x8x32xbf16>)
// CHECK-NEXT: %[[A:.*]] = loom.attention %[[H]]#0, %[[H]]#1, %[[H]]#2 {{.*}}heads = 2 : i64, kv_heads = 1 : i64
// CHECK-NEXT: loom.all_to_all %[[A]] {concat_dim = 2 : i64, dim = 1 : i64, group = "sp", group_size = 2 : i64} : tensor<1x8x64xbf16> -> tensor<1x4x128xbf16>
// CHECK-NOT: all_to_all

module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @llama(%x: tensor<1x8x128xbf16>) -> tensor<1x8x128xbf16> {
    %h = loom.layer 0 (%x) {kind = "llama"} : (tensor<1x8x128xbf16>) -> tensor<1x8x128xbf16> {
    ^bb0(%in: tensor<1x8x128xbf16>):
      %n = loom.rms_norm %in : tensor<1x8x128xbf16>
      %q = loom.linear q %n : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
      %k = loom.linear k %n : tensor<1x8x128xbf16> -> tensor<1x8x64xbf16>
      %v = loom.linear v %n : tensor<1x8x128xbf16> -> tensor<1x8x64xbf16>
      %qr = loom.rope %q {head_dim = 32} : tensor<1x8x128xbf16>
      %kr = loom.rope %k {head_dim = 32} : tensor<1x8x64xbf16>
      %a = loom.attention %qr, %kr, %v {heads = 4, kv_heads = 2, head_dim = 32, causal} : tensor<1x8x128xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x128xbf16>
      %o = loom.linear o %a : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
      %r = loom.add %in, %o : tensor<1x8x128xbf16>, tensor<1x8x128xbf16>
      loom.yield %r : tensor<1x8x128xbf16>
    }
    return %h : tensor<1x8x128xbf16>
  }
}
