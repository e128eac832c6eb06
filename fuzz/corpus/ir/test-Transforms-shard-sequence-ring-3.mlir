

// MMDiT joint attention (an SD3 / Flux double block of 2 heads over 96
// image and 8 text tokens) as a ring of 4: each chip keeps its 24 image
// tokens and, as 4 divides the 8 text tokens, its 2 text tokens; the op
// carries the ring (ring_text: the text's K/V blocks go round with the
// image's), both outputs stay split, and no all-to-all is left.
// CHECK-LABEL: func.func @joint_split
// CHECK: %img, %txt = loom.joint_attention {{.*}} {group = "sp", group_size = 4 : i64, head_dim = 64 : i64, heads = 2 : i64, ring_text} : tensor<1x24x128xbf16>, tensor<1x2x128xbf16>
// CHECK-NOT: all_to_all
// CHECK-NOT: all_gather
// CHECK: loom.yield %{{.*}}, %{{.*}} : tensor<1x24x128xbf16>, tensor<1x2x128xbf16>
module attributes {loom.model = #loom.model<name = "toy-mmdit", family = "sd3", mode = diffusion, batch = 1, seq = 96, steps = 4>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  func.func @joint_split(%img: tensor<1x96x128xbf16>, %txt: tensor<1x8x128xbf16>) -> tensor<1x96x128xbf16> {
    %y:2 = loom.layer 0 (%img, %txt) : (tensor<1x96x128xbf16>, tensor<1x8x128xbf16>) -> (tensor<1x96x128xbf16>, tensor<1x8x128xbf16>) {
    ^bb0(%i: tensor<1x96x128xbf16>, %t: tensor<1x8x128xbf16>):
      %qi = loom.linear q %i : tensor<1x96x128xbf16> -> tensor<1x96x128xbf16>
      %qt = loom.linear q %t : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
      %a:2 = loom.joint_attention %qi, %qi, %qi, %qt, %qt, %qt {heads = 2, head_dim = 64} : tensor<1x96x128xbf16>, tensor<1x8x128xbf16>
      loom.yield %a#0, %a#1 : tensor<1x96x128xbf16>, tensor<1x8x128xbf16>
    }
    return %y#0 : tensor<1x96x128xbf16>
  }
}

