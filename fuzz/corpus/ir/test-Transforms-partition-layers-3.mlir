

// A diffusion model's pipeline cuts PipeFusion patches over the model's
// denoising steps (one patch of the whole image until loom-split-tokens).
// Each stage keeps the previous step's K/V of its layer's 16 tokens for
// stale patches: 2 x 16 x 128 x 2 B = 8192 B, on top of 2 x 32768 B of
// weights and the results (q, attention, o: 3 x 4096 B) of the smallest
// patch loom-split-tokens may choose, 8 of the 16 tokens: 79.87 kB.
// CHECK-LABEL: func.func @toy_dit
// CHECK-SAME: attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [16], patches, steps = 4>}
// CHECK: loom.layer 0({{.*}}) {stage = 0 : i64}
// CHECK: loom.layer 1({{.*}}) {stage = 1 : i64}
module attributes {loom.model = #loom.model<name = "toy-dit", family = "dit", mode = diffusion, batch = 1, seq = 16, steps = 4>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  // expected-remark @+1 {{2 stages on v5e-4; slowest stage 0.000 ms; stage 0: layers 0-0, 0.000 ms, 79.87 kB; stage 1: layers 1-1, 0.000 ms, 79.87 kB}}
  func.func @toy_dit(%x: tensor<1x16x128xbf16>) -> tensor<1x16x128xbf16> {
    %0 = loom.layer 0 (%x) : (tensor<1x16x128xbf16>) -> tensor<1x16x128xbf16> {
    ^bb0(%in: tensor<1x16x128xbf16>):
      %q = loom.linear q %in : tensor<1x16x128xbf16> -> tensor<1x16x128xbf16>
      %a = loom.attention %q, %q, %q {heads = 2, kv_heads = 2, head_dim = 64} : tensor<1x16x128xbf16>, tensor<1x16x128xbf16> -> tensor<1x16x128xbf16>
      %o = loom.linear o %a : tensor<1x16x128xbf16> -> tensor<1x16x128xbf16>
      loom.yield %o : tensor<1x16x128xbf16>
    }
    %1 = loom.layer 1 (%0) : (tensor<1x16x128xbf16>) -> tensor<1x16x128xbf16> {
    ^bb0(%in: tensor<1x16x128xbf16>):
      %q = loom.linear q %in : tensor<1x16x128xbf16> -> tensor<1x16x128xbf16>
      %a = loom.attention %q, %q, %q {heads = 2, kv_heads = 2, head_dim = 64} : tensor<1x16x128xbf16>, tensor<1x16x128xbf16> -> tensor<1x16x128xbf16>
      %o = loom.linear o %a : tensor<1x16x128xbf16> -> tensor<1x16x128xbf16>
      loom.yield %o : tensor<1x16x128xbf16>
    }
    return %1 : tensor<1x16x128xbf16>
  }
}
