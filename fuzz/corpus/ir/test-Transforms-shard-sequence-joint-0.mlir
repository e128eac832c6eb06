// RUN: loom-opt %s -split-input-file --loom-shard-sequence=sp=2 | FileCheck %s

// Ulysses over MMDiT joint attention: a Flux-like toy on v5e-4,
// 4 heads of 64, 64 image tokens and 8 text tokens. One double block (joint
// attention over both streams), the streams concatenated text first, one
// single block over all 72 tokens, then the image tokens sliced out.
// sp = 2 divides the 8 text tokens, so the text stream is split like the
// image stream (xDiT's split_text_embed_in_sp): both enter the layers by a
// local_shard, all six of q, k, v go through an all-to-all to 2 heads over
// all of their stream's tokens, and both outputs come back. The
// concatenation of the two shares is a share of the joint sequence (36 of
// 72 tokens: 4 text, then 32 image), its single block exchanges like any
// self-attention, and the slice takes the image tokens at offset 8 / 2 = 4.

// CHECK-LABEL: func.func @flux_like
// CHECK-DAG: %[[I:.*]] = loom.local_shard %{{.*}} {dim = 1 : i64, group = "sp", group_size = 2 : i64} : tensor<1x64x256xbf16> -> tensor<1x32x256xbf16>
// CHECK-DAG: %[[T:.*]] = loom.local_shard %{{.*}} {dim = 1 : i64, group = "sp", group_size = 2 : i64} : tensor<1x8x256xbf16> -> tensor<1x4x256xbf16>
// CHECK: loom.layer 0(%[[I]], %[[T]])
// CHECK-COUNT-3: loom.all_to_all {{.*}} : tensor<1x32x256xbf16> -> tensor<1x64x128xbf16>
// CHECK-COUNT-3: loom.all_to_all {{.*}} : tensor<1x4x256xbf16> -> tensor<1x8x128xbf16>
// CHECK-NEXT: %[[IMG:.*]], %[[TXT:.*]] = loom.joint_attention {{.*}} {head_dim = 64 : i64, heads = 2 : i64} : tensor<1x64x128xbf16>, tensor<1x8x128xbf16>
// CHECK-NEXT: loom.all_to_all %[[IMG]] {concat_dim = 2 : i64, dim = 1 : i64, group = "sp", group_size = 2 : i64} : tensor<1x64x128xbf16> -> tensor<1x32x256xbf16>
// CHECK-NEXT: loom.all_to_all %[[TXT]] {concat_dim = 2 : i64, dim = 1 : i64, group = "sp", group_size = 2 : i64} : tensor<1x8x128xbf16> -> tensor<1x4x256xbf16>
// CHECK: loom.yield {{.*}} : tensor<1x32x256xbf16>, tensor<1x4x256xbf16>
// CHECK: %[[C:.*]] = loom.concat {{.*}} {dim = 1 : i64} : (tensor<1x4x256xbf16>, tensor<1x32x256xbf16>) -> tensor<1x36x256xbf16>
// CHECK-NOT: loom.all_gather
// CHECK: loom.layer 1(%[[C]])
// CHECK: loom.all_to_all {{.*}} : tensor<1x36x256xbf16> -> tensor<1x72x128xbf16>
// CHECK-NEXT: loom.attention {{.*}}heads = 2 : i64, kv_heads = 2 : i64} : tensor<1x72x128xbf16>, tensor<1x72x128xbf16> -> tensor<1x72x128xbf16>
// CHECK-NEXT: loom.all_to_all {{.*}} : tensor<1x72x128xbf16> -> tensor<1x36x256xbf16>
// CHECK: loom.slice {{.*}} {dim = 1 : i64, offset = 4 : i64} : tensor<1x36x256xbf16> -> tensor<1x32x256xbf16>
// CHECK: return {{.*}} : tensor<1x32x256xbf16>

module attributes {loom.model = #loom.model<name = "flux-like", family = "flux", mode = diffusion, batch = 1, seq = 64, steps = 4>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  func.func @flux_like(%x: tensor<1x64x256xbf16>, %txt: tensor<1x8x256xbf16>) -> tensor<1x64x256xbf16> {
    %0:2 = loom.layer 0 (%x, %txt) : (tensor<1x64x256xbf16>, tensor<1x8x256xbf16>) -> (tensor<1x64x256xbf16>, tensor<1x8x256xbf16>) {
    ^bb0(%i: tensor<1x64x256xbf16>, %t: tensor<1x8x256xbf16>):
      %qi = loom.linear q %i : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      %ki = loom.linear k %i : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      %vi = loom.linear v %i : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      %qt = loom.linear q %t : tensor<1x8x256xbf16> -> tensor<1x8x256xbf16>
      %kt = loom.linear k %t : tensor<1x8x256xbf16> -> tensor<1x8x256xbf16>
      %vt = loom.linear v %t : tensor<1x8x256xbf16> -> tensor<1x8x256xbf16>
      %img, %tx = loom.joint_attention %qi, %ki, %vi, %qt, %kt, %vt {heads = 4, head_dim = 64} : tensor<1x64x256xbf16>, tensor<1x8x256xbf16>
      %oi = loom.linear o %img : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      %ot = loom.linear o %tx : tensor<1x8x256xbf16> -> tensor<1x8x256xbf16>
      loom.yield %oi, %ot : tensor<1x64x256xbf16>, tensor<1x8x256xbf16>
    }
    %1 = loom.concat %0#1, %0#0 {dim = 1} : (tensor<1x8x256xbf16>, tensor<1x64x256xbf16>) -> tensor<1x72x256xbf16>
    %2 = loom.layer 1 (%1) : (tensor<1x72x256xbf16>) -> tensor<1x72x256xbf16> {
    ^bb0(%h: tensor<1x72x256xbf16>):
      %q = loom.linear q %h : tensor<1x72x256xbf16> -> tensor<1x72x256xbf16>
      %a = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 64} : tensor<1x72x256xbf16>, tensor<1x72x256xbf16> -> tensor<1x72x256xbf16>
      %o = loom.linear o %a : tensor<1x72x256xbf16> -> tensor<1x72x256xbf16>
      loom.yield %o : tensor<1x72x256xbf16>
    }
    %3 = loom.slice %2 {dim = 1, offset = 8} : tensor<1x72x256xbf16> -> tensor<1x64x256xbf16>
    %4 = loom.rms_norm %3 : tensor<1x64x256xbf16>
    return %4 : tensor<1x64x256xbf16>
  }
}

