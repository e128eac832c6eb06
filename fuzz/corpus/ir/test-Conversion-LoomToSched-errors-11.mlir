

// Nor a stage without a pipeline.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @no_pipeline(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    // expected-error @+1 {{'loom.layer' op is on stage 0, but its function has no 'loom.pipeline' (loom-partition-layers sets both)}}
    %a = loom.layer 0 (%x) {stage = 0} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %a : tensor<1x8x16xbf16>
  }
}
