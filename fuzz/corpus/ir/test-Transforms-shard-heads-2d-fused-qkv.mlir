// loom-shard-heads tp-x with a fused qkv projection (GPT-2/GPT-3): its
// partial sums are reduce-scattered over tp_x whole and chunked after (the
// weight's columns laid out shard-major, as Pope et al.'s heads-major
// q_wi), so each chip attends over heads / (X Y) and the output is gathered
// back over tp_x before o. tp = 8 as a 2 x 4 block of v5e-16: 8 heads, 2 a
// row, 1 a chip.
// RUN: loom-opt %s --loom-shard-heads="tp=8 tp-x=2" | FileCheck %s
// With 4 rows (tp = 8 as 4 x 2, 4 heads a row split 4 ways) as well.
// RUN: loom-opt %s --loom-shard-heads="tp=8 tp-x=4" | FileCheck %s --check-prefix=ROWS4

// CHECK: %[[P:.*]] = loom.linear qkv {{.*}} : tensor<1x8x64xbf16> -> tensor<1x8x96xbf16>
// CHECK-NEXT: %[[S:.*]] = loom.reduce_scatter %[[P]] {dim = 2 : i64, group = "tp_x", group_size = 2 : i64} : tensor<1x8x96xbf16> -> tensor<1x8x48xbf16>
// CHECK-NEXT: %[[C:.*]]:3 = loom.chunk %[[S]] : tensor<1x8x48xbf16> -> tensor<1x8x16xbf16>, tensor<1x8x16xbf16>, tensor<1x8x16xbf16>
// CHECK-NEXT: %[[A:.*]] = loom.attention %[[C]]#0, %[[C]]#1, %[[C]]#2 {{.*}}heads = 1 : i64, kv_heads = 1 : i64{{.*}} : tensor<1x8x16xbf16>, tensor<1x8x16xbf16> -> tensor<1x8x16xbf16>
// CHECK-NEXT: %[[G:.*]] = loom.all_gather %[[A]] {dim = 2 : i64, group = "tp_x", group_size = 2 : i64} : tensor<1x8x16xbf16> -> tensor<1x8x32xbf16>
// CHECK-NEXT: loom.linear o %[[G]]

// ROWS4: loom.reduce_scatter {{.*}} {dim = 2 : i64, group = "tp_x", group_size = 4 : i64} : tensor<1x8x192xbf16> -> tensor<1x8x48xbf16>
// ROWS4: loom.attention {{.*}}heads = 1 : i64, kv_heads = 1 : i64

module attributes {loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
  func.func @gpt(%x: tensor<1x8x128xbf16>) -> tensor<1x8x128xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x8x128xbf16>) -> tensor<1x8x128xbf16> {
    ^bb0(%in: tensor<1x8x128xbf16>):
      %n = loom.layer_norm %in : tensor<1x8x128xbf16>
      %qkv = loom.linear qkv %n : tensor<1x8x128xbf16> -> tensor<1x8x384xbf16>
      %c:3 = loom.chunk %qkv : tensor<1x8x384xbf16> -> tensor<1x8x128xbf16>, tensor<1x8x128xbf16>, tensor<1x8x128xbf16>
      %a = loom.attention %c#0, %c#1, %c#2 {heads = 8, kv_heads = 8, head_dim = 16, causal} : tensor<1x8x128xbf16>, tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
      %o = loom.linear o %a : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
      %r = loom.add %in, %o : tensor<1x8x128xbf16>, tensor<1x8x128xbf16>
      loom.yield %r : tensor<1x8x128xbf16>
    }
    return %y : tensor<1x8x128xbf16>
  }
}
