

// ZB-H1 holds W passes back: the last stage's layer (a GELU) and the loss
// make no weight gradient, so its backward pass does not split.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  func.func @no_weights(%x: tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [16], microbatches = 2, schedule = "zb-h1">} {
    %0 = loom.layer 0 (%x) {stage = 0} : (tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    ^bb0(%in: tensor<2x16x64xbf16>):
      %u = loom.linear up %in : tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
      loom.yield %u : tensor<2x16x64xbf16>
    }
    // expected-error @+1 {{convert-loom-to-sched: the zb-h1 schedule runs each backward pass as its input gradients (B) and its weight gradients (W), but the backward pass of chunk 1 (stage 1) makes no weight gradient (loom.grad weight)}}
    %1 = loom.layer 1 (%0) {stage = 1} : (tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    ^bb0(%in: tensor<2x16x64xbf16>):
      %u = loom.activation gelu %in : tensor<2x16x64xbf16>
      loom.yield %u : tensor<2x16x64xbf16>
    }
    return %1 : tensor<2x16x64xbf16>
  }
}

