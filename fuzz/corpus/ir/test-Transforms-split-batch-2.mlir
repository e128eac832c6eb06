

// A guided DiT's per-sample conditioning: class labels, timestep, the
// [B, F] linears and token-wise ops on them, the chunked modulation, and a
// reshape that keeps two rows per sample ([2B, F] -> [B, 2F]).
// CHECK: batch = 2, seq = 16, resolution = 64
// CHECK: func.func @dit(%{{.*}}: tensor<2x4x8x8xbf16>, %{{.*}}: tensor<2xf32>, %{{.*}}: tensor<2xi32>, %{{.*}}: tensor<4xf32>) -> tensor<2x8x8x8xbf16>
// CHECK: loom.patchify %{{.*}} {patch_size = 2 : i64} : tensor<2x4x8x8xbf16> -> tensor<2x16x32xbf16>
// CHECK: loom.embed %{{.*}} {vocab = 11 : i64} : tensor<2xi32> -> tensor<2x32xbf16>
// CHECK: loom.timestep_embed %{{.*}} : tensor<2xf32> -> tensor<2x16xbf16>
// CHECK: loom.linear cond %{{.*}} : tensor<2x16xbf16> -> tensor<2x32xbf16>
// CHECK: loom.timestep_embed %{{.*}} : tensor<4xf32> -> tensor<4x16xbf16>
// CHECK: loom.reshape %{{.*}} : tensor<4x16xbf16> -> tensor<2x32xbf16>
// CHECK: loom.add %{{.*}}, %{{.*}} : tensor<2x32xbf16>, tensor<2x32xbf16>
// CHECK: loom.linear modulation %{{.*}} : tensor<2x32xbf16> -> tensor<2x64xbf16>
// CHECK: loom.chunk %{{.*}} : tensor<2x64xbf16> -> tensor<2x32xbf16>, tensor<2x32xbf16>
// CHECK: loom.modulate %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x16x32xbf16>, tensor<2x32xbf16>
// CHECK: loom.unpatchify %{{.*}} {patch_size = 2 : i64} : tensor<2x16x32xbf16> -> tensor<2x8x8x8xbf16>
module attributes {loom.model = #loom.model<name = "dit", family = "dit", mode = diffusion, batch = 8, seq = 16, resolution = 64, steps = 50>} {
  func.func @dit(%latent: tensor<8x4x8x8xbf16>, %t: tensor<8xf32>, %labels: tensor<8xi32>, %res: tensor<16xf32>) -> tensor<8x8x8x8xbf16> {
    %x = loom.patchify %latent {patch_size = 2} : tensor<8x4x8x8xbf16> -> tensor<8x16x32xbf16>
    %y = loom.embed %labels {vocab = 11} : tensor<8xi32> -> tensor<8x32xbf16>
    %f = loom.timestep_embed %t : tensor<8xf32> -> tensor<8x16xbf16>
    %c = loom.linear cond %f : tensor<8x16xbf16> -> tensor<8x32xbf16>
    %rf = loom.timestep_embed %res : tensor<16xf32> -> tensor<16x16xbf16>
    %r = loom.reshape %rf : tensor<16x16xbf16> -> tensor<8x32xbf16>
    %s = loom.add %c, %r : tensor<8x32xbf16>, tensor<8x32xbf16>
    %cond = loom.add %s, %y : tensor<8x32xbf16>, tensor<8x32xbf16>
    %m = loom.linear modulation %cond : tensor<8x32xbf16> -> tensor<8x64xbf16>
    %m0, %m1 = loom.chunk %m : tensor<8x64xbf16> -> tensor<8x32xbf16>, tensor<8x32xbf16>
    %h = loom.modulate %x, %m0, %m1 : tensor<8x16x32xbf16>, tensor<8x32xbf16>
    %o = loom.unpatchify %h {patch_size = 2} : tensor<8x16x32xbf16> -> tensor<8x8x8x8xbf16>
    return %o : tensor<8x8x8x8xbf16>
  }
}
