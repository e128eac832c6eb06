

// The same with 6 text tokens, which 4 does not divide: every chip keeps
// the whole text, attends it once (no ring_text) and computes the text
// stream's output in full, so no all-gather is needed either.
// CHECK-LABEL: func.func @joint_whole_text
// CHECK: %img, %txt = loom.joint_attention {{.*}} {group = "sp", group_size = 4 : i64, head_dim = 64 : i64, heads = 2 : i64} : tensor<1x24x128xbf16>, tensor<1x6x128xbf16>
// CHECK-NOT: all_to_all
// CHECK-NOT: all_gather
// CHECK: loom.yield %{{.*}}, %{{.*}} : tensor<1x24x128xbf16>, tensor<1x6x128xbf16>
module attributes {loom.model = #loom.model<name = "toy-mmdit", family = "sd3", mode = diffusion, batch = 1, seq = 96, steps = 4>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  func.func @joint_whole_text(%img: tensor<1x96x128xbf16>, %txt: tensor<1x6x128xbf16>) -> tensor<1x96x128xbf16> {
    %y:2 = loom.layer 0 (%img, %txt) : (tensor<1x96x128xbf16>, tensor<1x6x128xbf16>) -> (tensor<1x96x128xbf16>, tensor<1x6x128xbf16>) {
    ^bb0(%i: tensor<1x96x128xbf16>, %t: tensor<1x6x128xbf16>):
      %qi = loom.linear q %i : tensor<1x96x128xbf16> -> tensor<1x96x128xbf16>
      %qt = loom.linear q %t : tensor<1x6x128xbf16> -> tensor<1x6x128xbf16>
      %a:2 = loom.joint_attention %qi, %qi, %qi, %qt, %qt, %qt {heads = 2, head_dim = 64} : tensor<1x96x128xbf16>, tensor<1x6x128xbf16>
      loom.yield %a#0, %a#1 : tensor<1x96x128xbf16>, tensor<1x6x128xbf16>
    }
    return %y#0 : tensor<1x96x128xbf16>
  }
}
