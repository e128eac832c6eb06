// loom-shard-heads kv-batch: a decode step of 4 sequences of a GQA model
// (8 query heads and 2 KV heads of 32) on a tp = 4 group, so 2 chips hold
// each KV head. With kv-batch = 2 they split its cache by batch (the JAX
// scaling book, Part 7, "Sharding the KV cache"): an all-to-all over "kv"
// trades the query's 2 heads of 4 sequences for 4 heads of 2 sequences,
// each chip keeps 2 sequences of K and V (no communication) and attends
// with the 4 query heads of its KV head, and a second all-to-all trades
// them back before the output projection, which is split as before.
// RUN: loom-opt %s --loom-shard-heads="tp=4 kv-batch=2" | FileCheck %s
// RUN: loom-opt %s --loom-shard-heads="tp=4 kv-batch=2" --loom-check-memory=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=MEM
// RUN: loom-opt %s --loom-shard-heads=tp=4 --loom-check-memory=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=WHOLE

// CHECK: module attributes {loom.parallel = #loom.parallel<tp = 4, kv_batch = 2>
// CHECK-LABEL: func.func @gqa
// CHECK: loom.linear q {{.*}} : tensor<4x1x256xbf16> -> tensor<4x1x64xbf16>
// CHECK: %[[K:.*]] = loom.linear k {{.*}} {loom.split = #loom.split<column, 2, replicas = 2>} : tensor<4x1x256xbf16> -> tensor<4x1x32xbf16>
// CHECK: %[[V:.*]] = loom.linear v {{.*}} : tensor<4x1x256xbf16> -> tensor<4x1x32xbf16>
// CHECK-NEXT: %[[Q:.*]] = loom.all_to_all %{{.*}} {concat_dim = 2 : i64, dim = 0 : i64, group = "kv", group_size = 2 : i64} : tensor<4x1x64xbf16> -> tensor<2x1x128xbf16>
// CHECK-NEXT: %[[KS:.*]] = loom.local_shard %[[K]] {dim = 0 : i64, group = "kv", group_size = 2 : i64} : tensor<4x1x32xbf16> -> tensor<2x1x32xbf16>
// CHECK-NEXT: %[[VS:.*]] = loom.local_shard %[[V]] {dim = 0 : i64, group = "kv", group_size = 2 : i64} : tensor<4x1x32xbf16> -> tensor<2x1x32xbf16>
// CHECK-NEXT: %[[A:.*]] = loom.attention %[[Q]], %[[KS]], %[[VS]] {cached = 1023 : i64, causal, head_dim = 32 : i64, heads = 4 : i64, kv_heads = 1 : i64, loom.split = #loom.split<heads, 4>} : tensor<2x1x128xbf16>, tensor<2x1x32xbf16> -> tensor<2x1x128xbf16>
// CHECK-NEXT: %[[B:.*]] = loom.all_to_all %[[A]] {concat_dim = 0 : i64, dim = 2 : i64, group = "kv", group_size = 2 : i64} : tensor<2x1x128xbf16> -> tensor<4x1x64xbf16>
// CHECK-NEXT: %[[O:.*]] = loom.linear o %[[B]] {loom.split = #loom.split<row, 4>} : tensor<4x1x64xbf16> -> tensor<4x1x256xbf16>
// CHECK-NEXT: loom.all_reduce %[[O]] {group = "tp", group_size = 4 : i64}

// Each chip's cache: 2 sequences x 1024 tokens x K and V of 32 bf16 =
// 262.14 kB, half of what each chip holds when every chip holding the KV
// head keeps all 4 sequences.
// MEM: KV cache 262.14 kB,
// WHOLE: KV cache 524.29 kB,

module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @gqa(%x: tensor<4x1x256xbf16>) -> tensor<4x1x256xbf16> {
    %h = loom.layer 0 (%x) {kind = "llama"} : (tensor<4x1x256xbf16>) -> tensor<4x1x256xbf16> {
    ^bb0(%in: tensor<4x1x256xbf16>):
      %q = loom.linear q %in : tensor<4x1x256xbf16> -> tensor<4x1x256xbf16>
      %k = loom.linear k %in : tensor<4x1x256xbf16> -> tensor<4x1x64xbf16>
      %v = loom.linear v %in : tensor<4x1x256xbf16> -> tensor<4x1x64xbf16>
      %a = loom.attention %q, %k, %v {heads = 8, kv_heads = 2, head_dim = 32, causal, cached = 1023} : tensor<4x1x256xbf16>, tensor<4x1x64xbf16> -> tensor<4x1x256xbf16>
      %o = loom.linear o %a : tensor<4x1x256xbf16> -> tensor<4x1x256xbf16>
      %r = loom.add %in, %o : tensor<4x1x256xbf16>, tensor<4x1x256xbf16>
      loom.yield %r : tensor<4x1x256xbf16>
    }
    return %h : tensor<4x1x256xbf16>
  }
}
