

// So does ZB-H2: here the first stage's layer makes no weight gradient.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  func.func @no_weights_first(%x: tensor<3x16x64xbf16>) -> tensor<3x16x64xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [16], microbatches = 3, schedule = "zb-h2">} {
    // expected-error @+1 {{convert-loom-to-sched: the zb-h2 schedule runs each backward pass as its input gradients (B) and its weight gradients (W), but the backward pass of chunk 0 (stage 0) makes no weight gradient (loom.grad weight)}}
    %0 = loom.layer 0 (%x) {stage = 0} : (tensor<3x16x64xbf16>) -> tensor<3x16x64xbf16> {
    ^bb0(%in: tensor<3x16x64xbf16>):
      %u = loom.activation gelu %in : tensor<3x16x64xbf16>
      loom.yield %u : tensor<3x16x64xbf16>
    }
    %1 = loom.layer 1 (%0) {stage = 1} : (tensor<3x16x64xbf16>) -> tensor<3x16x64xbf16> {
    ^bb0(%in: tensor<3x16x64xbf16>):
      %u = loom.linear up %in : tensor<3x16x64xbf16> -> tensor<3x16x64xbf16>
      loom.yield %u : tensor<3x16x64xbf16>
    }
    return %1 : tensor<3x16x64xbf16>
  }
}

