// RUN: loom-opt %s --loom-shard-sequence=sp=2 | FileCheck %s
// RUN: loom-opt %s --loom-shard-sequence=sp=4 | FileCheck %s --check-prefix=WHOLE

// A CogVideoX-style block of 4 heads of 64 (hidden 256): 64 video tokens
// and 6 text tokens, both layer inputs, joined along the sequence for one
// attention, then parted again, each added to its own residual. With
// sp = 2 each chip keeps its share of both parts (32 video, 3 text tokens),
// so the joined sequence is split too (35 of 70), and the parts after the
// attention are at offsets 0 and 3 of each chip's share.

// CHECK: func.func @toy_cogvideox(%[[X:.*]]: tensor<1x64x256xbf16>, %[[T:.*]]: tensor<1x6x256xbf16>)
// CHECK-DAG: loom.local_shard %[[X]] {{.*}} : tensor<1x64x256xbf16> -> tensor<1x32x256xbf16>
// CHECK-DAG: loom.local_shard %[[T]] {{.*}} : tensor<1x6x256xbf16> -> tensor<1x3x256xbf16>
// CHECK: loom.concat {{.*}} {dim = 1 : i64} : (tensor<1x3x256xbf16>, tensor<1x32x256xbf16>) -> tensor<1x35x256xbf16>
// CHECK: loom.all_to_all {{.*}} : tensor<1x35x256xbf16> -> tensor<1x70x128xbf16>
// CHECK: loom.attention {{.*}}heads = 2 : i64{{.*}} : tensor<1x70x128xbf16>
// CHECK: loom.all_to_all {{.*}} : tensor<1x70x128xbf16> -> tensor<1x35x256xbf16>
// CHECK: loom.slice {{.*}} {dim = 1 : i64, offset = 0 : i64} : tensor<1x35x256xbf16> -> tensor<1x3x256xbf16>
// CHECK: loom.slice {{.*}} {dim = 1 : i64, offset = 3 : i64} : tensor<1x35x256xbf16> -> tensor<1x32x256xbf16>
// CHECK: loom.add {{.*}} : tensor<1x32x256xbf16>, tensor<1x32x256xbf16>
// CHECK: loom.add {{.*}} : tensor<1x3x256xbf16>, tensor<1x3x256xbf16>

// sp = 4 does not divide the 6 text tokens: the text stays whole, so the
// video share is gathered where the two are joined, the attention runs
// whole, and each chip keeps its share of the video part for its residual.
// WHOLE: loom.local_shard {{.*}} : tensor<1x64x256xbf16> -> tensor<1x16x256xbf16>
// WHOLE: loom.all_gather {{.*}} : tensor<1x16x256xbf16> -> tensor<1x64x256xbf16>
// WHOLE: loom.concat {{.*}} : (tensor<1x6x256xbf16>, tensor<1x64x256xbf16>) -> tensor<1x70x256xbf16>
// WHOLE-NOT: all_to_all
// WHOLE: loom.attention {{.*}}heads = 4 : i64{{.*}} : tensor<1x70x256xbf16>
// WHOLE: %[[V:.*]] = loom.local_shard {{.*}} : tensor<1x64x256xbf16> -> tensor<1x16x256xbf16>
// WHOLE-NEXT: loom.add %{{.*}}, %[[V]] : tensor<1x16x256xbf16>, tensor<1x16x256xbf16>
// WHOLE-NEXT: loom.add {{.*}} : tensor<1x6x256xbf16>, tensor<1x6x256xbf16>

module attributes {loom.model = #loom.model<name = "toy-cogvideox", family = "dit", mode = diffusion, batch = 1, seq = 64, steps = 4>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  func.func @toy_cogvideox(%x: tensor<1x64x256xbf16>, %txt: tensor<1x6x256xbf16>) -> tensor<1x64x256xbf16> {
    %0:2 = loom.layer 0 (%x, %txt) : (tensor<1x64x256xbf16>, tensor<1x6x256xbf16>) -> (tensor<1x64x256xbf16>, tensor<1x6x256xbf16>) {
    ^bb0(%in: tensor<1x64x256xbf16>, %t: tensor<1x6x256xbf16>):
      %j = loom.concat %t, %in {dim = 1 : i64} : (tensor<1x6x256xbf16>, tensor<1x64x256xbf16>) -> tensor<1x70x256xbf16>
      %q = loom.linear q %j : tensor<1x70x256xbf16> -> tensor<1x70x256xbf16>
      %a = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 64} : tensor<1x70x256xbf16>, tensor<1x70x256xbf16> -> tensor<1x70x256xbf16>
      %o = loom.linear o %a : tensor<1x70x256xbf16> -> tensor<1x70x256xbf16>
      %ot = loom.slice %o {dim = 1 : i64, offset = 0 : i64} : tensor<1x70x256xbf16> -> tensor<1x6x256xbf16>
      %ov = loom.slice %o {dim = 1 : i64, offset = 6 : i64} : tensor<1x70x256xbf16> -> tensor<1x64x256xbf16>
      %v = loom.add %in, %ov : tensor<1x64x256xbf16>, tensor<1x64x256xbf16>
      %tt = loom.add %t, %ot : tensor<1x6x256xbf16>, tensor<1x6x256xbf16>
      loom.yield %v, %tt : tensor<1x64x256xbf16>, tensor<1x6x256xbf16>
    }
    return %0#0 : tensor<1x64x256xbf16>
  }
}
