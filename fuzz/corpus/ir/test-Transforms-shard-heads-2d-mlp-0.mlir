// loom-shard-heads tp-x: the MLP in Pope et al.'s reduce-scatter form
// (MLSys 2023, section 3.2.2; BLF_yz -> BLF_xyz): fc1's partial sums are
// reduce-scattered over tp_x by d_ff, the activation runs once on each
// chip's F / (X Y), and its output is all-gathered over tp_x before fc2.
// tp = 8 as a 2 x 4 block of v5e-16.
// RUN: loom-opt %s -split-input-file --loom-shard-heads="tp=8 tp-x=2" | FileCheck %s

// A GELU MLP: 256 of d_ff, 64 a row, 32 a chip.
// CHECK-LABEL: func.func @gelu
// CHECK: %[[P:.*]] = loom.linear fc1 {{.*}} {loom.split = #loom.split<column, 4 x 2>} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
// CHECK-NEXT: %[[S:.*]] = loom.reduce_scatter %[[P]] {dim = 2 : i64, group = "tp_x", group_size = 2 : i64} : tensor<1x8x64xbf16> -> tensor<1x8x32xbf16>
// CHECK-NEXT: %[[A:.*]] = loom.activation gelu %[[S]] : tensor<1x8x32xbf16>
// CHECK-NEXT: %[[G:.*]] = loom.all_gather %[[A]] {dim = 2 : i64, group = "tp_x", group_size = 2 : i64} : tensor<1x8x32xbf16> -> tensor<1x8x64xbf16>
// CHECK-NEXT: loom.linear fc2 %[[G]] {loom.split = #loom.split<row, 4 x 2>} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
// CHECK-NEXT: loom.all_reduce {{.*}} {group = "tp_y", group_size = 4 : i64}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
  func.func @gelu(%x: tensor<1x8x128xbf16>) -> tensor<1x8x128xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x8x128xbf16>) -> tensor<1x8x128xbf16> {
    ^bb0(%in: tensor<1x8x128xbf16>):
      %n = loom.layer_norm %in : tensor<1x8x128xbf16>
      %u = loom.linear fc1 %n : tensor<1x8x128xbf16> -> tensor<1x8x256xbf16>
      %a = loom.activation gelu %u : tensor<1x8x256xbf16>
      %d = loom.linear fc2 %a : tensor<1x8x256xbf16> -> tensor<1x8x128xbf16>
      %r = loom.add %in, %d : tensor<1x8x128xbf16>, tensor<1x8x128xbf16>
      loom.yield %r : tensor<1x8x128xbf16>
    }
    return %y : tensor<1x8x128xbf16>
  }
}

