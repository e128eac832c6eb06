

// Every stage runs at least one layer (the function's verifier says so).
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  // expected-error @+1 {{'loom.pipeline' has 2 stages but the layers use 1}}
  func.func @empty_stage(%x: tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [16], microbatches = 2, schedule = "1f1b">} {
    %0 = loom.layer 0 (%x) {stage = 0} : (tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    ^bb0(%in: tensor<2x16x64xbf16>):
      %u = loom.linear up %in : tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
      loom.yield %u : tensor<2x16x64xbf16>
    }
    %1 = loom.layer 1 (%0) {stage = 0} : (tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    ^bb0(%in: tensor<2x16x64xbf16>):
      %u = loom.linear up %in : tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
      loom.yield %u : tensor<2x16x64xbf16>
    }
    return %1 : tensor<2x16x64xbf16>
  }
}
