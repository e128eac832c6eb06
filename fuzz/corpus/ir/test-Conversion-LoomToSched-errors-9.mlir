

// A layer on a stage past the pipeline never reaches the lowering (which
// would index a stage that does not exist): the verifier refuses it.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @past(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [8]>} {
    %a = loom.layer 0 (%x) {stage = 0} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    // expected-error @+1 {{'loom.layer' op is on stage 1 but the pipeline has 1 stages}}
    %b = loom.layer 1 (%a) {stage = 1} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %b : tensor<1x8x16xbf16>
  }
}

