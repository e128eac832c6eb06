

// SD3-like: 2 does not divide the 5 text tokens (SD3 has 333), so the text
// stays whole on both chips (xDiT's replicated text): each chip takes its 2
// heads of the text q, k, v locally (local_shard over dim 2, no bytes move)
// and all-gathers the text output's heads; the image stream is exchanged
// as before (q, k and v are one value here: one exchange each). The text
// ops run on all 5 tokens.

// CHECK-LABEL: func.func @sd3_like
// CHECK: loom.layer 0(%{{.*}}, %{{.*}}) : (tensor<1x32x256xbf16>, tensor<1x5x256xbf16>)
// CHECK: loom.linear q {{.*}} : tensor<1x5x256xbf16> -> tensor<1x5x256xbf16>
// CHECK-NEXT: loom.all_to_all {{.*}} : tensor<1x32x256xbf16> -> tensor<1x64x128xbf16>
// CHECK-NEXT: loom.local_shard {{.*}} {dim = 2 : i64, group = "sp", group_size = 2 : i64} : tensor<1x5x256xbf16> -> tensor<1x5x128xbf16>
// CHECK-NEXT: %[[IMG:.*]], %[[TXT:.*]] = loom.joint_attention {{.*}} {head_dim = 64 : i64, heads = 2 : i64} : tensor<1x64x128xbf16>, tensor<1x5x128xbf16>
// CHECK-NEXT: loom.all_to_all %[[IMG]] {{.*}} : tensor<1x64x128xbf16> -> tensor<1x32x256xbf16>
// CHECK-NEXT: loom.all_gather %[[TXT]] {dim = 2 : i64, group = "sp", group_size = 2 : i64} : tensor<1x5x128xbf16> -> tensor<1x5x256xbf16>
// CHECK: loom.yield {{.*}} : tensor<1x32x256xbf16>, tensor<1x5x256xbf16>

module attributes {loom.model = #loom.model<name = "sd3-like", family = "sd3", mode = diffusion, batch = 1, seq = 64, steps = 4>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  func.func @sd3_like(%x: tensor<1x64x256xbf16>, %txt: tensor<1x5x256xbf16>) -> tensor<1x64x256xbf16> {
    %0:2 = loom.layer 0 (%x, %txt) : (tensor<1x64x256xbf16>, tensor<1x5x256xbf16>) -> (tensor<1x64x256xbf16>, tensor<1x5x256xbf16>) {
    ^bb0(%i: tensor<1x64x256xbf16>, %t: tensor<1x5x256xbf16>):
      %qi = loom.linear q %i : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      %qt = loom.linear q %t : tensor<1x5x256xbf16> -> tensor<1x5x256xbf16>
      %img, %tx = loom.joint_attention %qi, %qi, %qi, %qt, %qt, %qt {heads = 4, head_dim = 64} : tensor<1x64x256xbf16>, tensor<1x5x256xbf16>
      loom.yield %img, %tx : tensor<1x64x256xbf16>, tensor<1x5x256xbf16>
    }
    return %0#0 : tensor<1x64x256xbf16>
  }
}
