

// A d_ff whose row share does not split over tp_x (12 a row, 2 rows) keeps
// the all-reduce; the activation then runs on each chip of the column.
// CHECK-LABEL: func.func @narrow
// CHECK: loom.linear up {{.*}} -> tensor<1x8x3xbf16>
// CHECK-NEXT: loom.all_reduce {{.*}} {group = "tp_x", group_size = 2 : i64} : tensor<1x8x3xbf16> -> tensor<1x8x3xbf16>
// CHECK-NEXT: loom.activation gelu {{.*}} : tensor<1x8x3xbf16>
// CHECK-NEXT: loom.linear down
// CHECK-NOT: reduce_scatter
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
  func.func @narrow(%x: tensor<1x8x128xbf16>) -> tensor<1x8x128xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x8x128xbf16>) -> tensor<1x8x128xbf16> {
    ^bb0(%in: tensor<1x8x128xbf16>):
      %n = loom.rms_norm %in : tensor<1x8x128xbf16>
      %u = loom.linear up %n : tensor<1x8x128xbf16> -> tensor<1x8x12xbf16>
      %a = loom.activation gelu %u : tensor<1x8x12xbf16>
      %d = loom.linear down %a : tensor<1x8x12xbf16> -> tensor<1x8x128xbf16>
      %r = loom.add %in, %d : tensor<1x8x128xbf16>, tensor<1x8x128xbf16>
      loom.yield %r : tensor<1x8x128xbf16>
    }
    return %y : tensor<1x8x128xbf16>
  }
}
