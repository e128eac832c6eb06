// A diffusion transformer of two layers (q projection, full attention of 4
// heads of 64, o projection; hidden 256) over 64 image tokens and 4
// denoising steps, cut into 2 stages on v5e-4: what loom-partition-layers
// leaves for loom-split-tokens. The patches it gets are worked by hand in
// ../split-tokens.mlir.
module attributes {loom.model = #loom.model<name = "toy-dit", family = "dit", mode = diffusion, batch = 1, seq = 64, steps = 4>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  func.func @toy_dit(%x: tensor<1x64x256xbf16>) -> tensor<1x64x256xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [64], patches, steps = 4>} {
    %0 = loom.layer 0 (%x) {stage = 0} : (tensor<1x64x256xbf16>) -> tensor<1x64x256xbf16> {
    ^bb0(%in: tensor<1x64x256xbf16>):
      %q = loom.linear q %in : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      %a = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 64} : tensor<1x64x256xbf16>, tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      %o = loom.linear o %a : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      loom.yield %o : tensor<1x64x256xbf16>
    }
    %1 = loom.layer 1 (%0) {stage = 1} : (tensor<1x64x256xbf16>) -> tensor<1x64x256xbf16> {
    ^bb0(%in: tensor<1x64x256xbf16>):
      %q = loom.linear q %in : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      %a = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 64} : tensor<1x64x256xbf16>, tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      %o = loom.linear o %a : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      loom.yield %o : tensor<1x64x256xbf16>
    }
    return %1 : tensor<1x64x256xbf16>
  }
}
