// loom-shard-heads tp-x with sequence-parallel: Megatron's sequence
// parallelism over each block row (tp_y) on top of the 2-D layout. o's and
// down's partial sums (E / X wide) are reduce-scattered over tp_y by the
// sequence instead of all-reduced, the residual, its adds and norms hold
// L / Y tokens of E / X, and the norms' outputs are gathered back over
// tp_y before q, k, v and gate, up. tp = 8 as a 2 x 4 block of v5e-16.
// RUN: loom-opt %s -split-input-file -verify-diagnostics --loom-shard-heads="tp=8 tp-x=2 sequence-parallel=true" | FileCheck %s

// CHECK: module attributes {loom.parallel = #loom.parallel<tp = 8, sequence_parallel = true, tp_x = 2>
// CHECK: %[[E:.*]] = loom.reduce_scatter {{.*}} {dim = 1 : i64, group = "tp_y", group_size = 4 : i64} : tensor<1x8x128xbf16> -> tensor<1x2x128xbf16>
// CHECK-NEXT: %[[X:.*]] = loom.local_shard %[[E]] {dim = 2 : i64, group = "tp_x", group_size = 2 : i64} : tensor<1x2x128xbf16> -> tensor<1x2x64xbf16>
// CHECK-NEXT: loom.layer 0(%[[X]]){{.*}}: (tensor<1x2x64xbf16>) -> tensor<1x2x64xbf16>
// The norm's statistic over tp_x of the row's 2 tokens.
// CHECK: loom.all_reduce {{.*}} {group = "tp_x", group_size = 2 : i64} : tensor<1x2x2xbf16>
// CHECK-NEXT: %[[N:.*]] = loom.rms_norm {{.*}} : tensor<1x2x64xbf16>
// CHECK-NEXT: %[[G:.*]] = loom.all_gather %[[N]] {dim = 1 : i64, group = "tp_y", group_size = 4 : i64} : tensor<1x2x64xbf16> -> tensor<1x8x64xbf16>
// CHECK-NEXT: loom.linear up %[[G]] {{.*}} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
// CHECK-NEXT: loom.reduce_scatter {{.*}} {dim = 2 : i64, group = "tp_x", group_size = 2 : i64} : tensor<1x8x64xbf16> -> tensor<1x8x32xbf16>
// CHECK-NEXT: loom.activation gelu {{.*}} : tensor<1x8x32xbf16>
// CHECK-NEXT: loom.all_gather {{.*}} {dim = 2 : i64, group = "tp_x", group_size = 2 : i64} : tensor<1x8x32xbf16> -> tensor<1x8x64xbf16>
// CHECK-NEXT: %[[D:.*]] = loom.linear down {{.*}} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
// CHECK-NEXT: %[[R:.*]] = loom.reduce_scatter %[[D]] {dim = 1 : i64, group = "tp_y", group_size = 4 : i64} : tensor<1x8x64xbf16> -> tensor<1x2x64xbf16>
// CHECK-NEXT: loom.add {{.*}}, %[[R]] : tensor<1x2x64xbf16>, tensor<1x2x64xbf16>
// After the layers: whole over tp_x, then over tp_y for the head.
// CHECK: loom.all_gather {{.*}} {dim = 2 : i64, group = "tp_x", group_size = 2 : i64} : tensor<1x2x64xbf16> -> tensor<1x2x128xbf16>
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
  func.func @mlp(%ids: tensor<1x8xi32>) -> tensor<1x8x128xbf16> {
    %x = loom.embed %ids {vocab = 100} : tensor<1x8xi32> -> tensor<1x8x128xbf16>
    %y = loom.layer 0 (%x) : (tensor<1x8x128xbf16>) -> tensor<1x8x128xbf16> {
    ^bb0(%in: tensor<1x8x128xbf16>):
      %n = loom.rms_norm %in : tensor<1x8x128xbf16>
      %u = loom.linear up %n : tensor<1x8x128xbf16> -> tensor<1x8x256xbf16>
      %a = loom.activation gelu %u : tensor<1x8x256xbf16>
      %d = loom.linear down %a : tensor<1x8x256xbf16> -> tensor<1x8x128xbf16>
      %r = loom.add %in, %d : tensor<1x8x128xbf16>, tensor<1x8x128xbf16>
      loom.yield %r : tensor<1x8x128xbf16>
    }
    %f = loom.rms_norm %y : tensor<1x8x128xbf16>
    return %f : tensor<1x8x128xbf16>
  }
}

