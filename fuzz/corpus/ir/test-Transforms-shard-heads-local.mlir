// Hand-written graphs whose projections or attention take whole tensors:
// each chip keeps its piece locally (loom.local_shard, no communication)
// before the row split or the attention.
// RUN: loom-opt %s --loom-shard-heads=tp=4 | FileCheck %s

module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  // CHECK-LABEL: func.func @row_from_residual
  // CHECK: %[[P:.*]] = loom.local_shard %arg0 {dim = 2 : i64, group = "tp", group_size = 4 : i64} : tensor<1x8x64xbf16> -> tensor<1x8x16xbf16>
  // CHECK-NEXT: %[[O:.*]] = loom.linear o %[[P]] {loom.split = #loom.split<row, 4>} : tensor<1x8x16xbf16> -> tensor<1x8x64xbf16>
  // CHECK-NEXT: loom.all_reduce %[[O]]
  func.func @row_from_residual(%x: tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    %o = loom.linear o %x : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
    return %o : tensor<1x8x64xbf16>
  }

  // Attention over whole q, k, v: 8 heads -> 2 per chip, 2 KV heads -> one
  // per chip, each on 2 chips.
  // CHECK-LABEL: func.func @attention_from_arguments
  // CHECK: loom.local_shard %arg0 {dim = 2 : i64, group = "tp", group_size = 4 : i64} : tensor<1x8x128xbf16> -> tensor<1x8x32xbf16>
  // CHECK: loom.local_shard %arg1 {dim = 2 : i64, group = "tp", group_size = 2 : i64} : tensor<1x8x32xbf16> -> tensor<1x8x16xbf16>
  // CHECK: loom.attention {{.*}} {causal, head_dim = 16 : i64, heads = 2 : i64, kv_heads = 1 : i64, loom.split = #loom.split<heads, 4>} : tensor<1x8x32xbf16>, tensor<1x8x16xbf16> -> tensor<1x8x32xbf16>
  func.func @attention_from_arguments(%q: tensor<1x8x128xbf16>, %k: tensor<1x8x32xbf16>) -> tensor<1x8x128xbf16> {
    %a = loom.attention %q, %k, %k {heads = 8, kv_heads = 2, head_dim = 16, causal} : tensor<1x8x128xbf16>, tensor<1x8x32xbf16> -> tensor<1x8x128xbf16>
    %o = loom.linear o %a : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
    return %o : tensor<1x8x128xbf16>
  }

  // A split MLP branch joined with a whole tensor: the whole one is cut too.
  // CHECK-LABEL: func.func @concat_mixed
  // CHECK: %[[U:.*]] = loom.linear up %arg0 {loom.split = #loom.split<column, 4>} : tensor<1x8x64xbf16> -> tensor<1x8x32xbf16>
  // CHECK: %[[W:.*]] = loom.local_shard %arg1 {dim = 2 : i64, group = "tp", group_size = 4 : i64} : tensor<1x8x64xbf16> -> tensor<1x8x16xbf16>
  // CHECK: loom.concat %[[U]], %[[W]] {dim = 2 : i64} : (tensor<1x8x32xbf16>, tensor<1x8x16xbf16>) -> tensor<1x8x48xbf16>
  func.func @concat_mixed(%x: tensor<1x8x64xbf16>, %y: tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    %u = loom.linear up %x : tensor<1x8x64xbf16> -> tensor<1x8x128xbf16>
    %c = loom.concat %u, %y {dim = 2} : (tensor<1x8x128xbf16>, tensor<1x8x64xbf16>) -> tensor<1x8x192xbf16>
    %d = loom.linear down %c : tensor<1x8x192xbf16> -> tensor<1x8x64xbf16>
    return %d : tensor<1x8x64xbf16>
  }
}
