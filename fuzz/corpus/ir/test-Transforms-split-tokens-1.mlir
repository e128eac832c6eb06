

// The same layers on 4 stages: M + 4 + 3 (1 + 4 / M) is 14 at M = 4, 14.125
// at M = 3 (88, 88, 80) and 14.625 at M = 5 (at best 56, 56, 48, 48, 48):
// more stages, more slices to fill them.
// CHECK-LABEL: func.func @linear_four_stages
// CHECK-SAME: loom.pipeline = #loom.pipeline<stages = 4, slices = [64, 64, 64, 64]>
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  func.func @linear_four_stages(%x: tensor<1x256x128xbf16>) -> tensor<1x256x128xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 4, slices = [256]>} {
    %0 = loom.layer 0 (%x) {stage = 0} : (tensor<1x256x128xbf16>) -> tensor<1x256x128xbf16> {
    ^bb0(%in: tensor<1x256x128xbf16>):
      %o = loom.linear o %in : tensor<1x256x128xbf16> -> tensor<1x256x128xbf16>
      loom.yield %o : tensor<1x256x128xbf16>
    }
    %1 = loom.layer 1 (%0) {stage = 1} : (tensor<1x256x128xbf16>) -> tensor<1x256x128xbf16> {
    ^bb0(%in: tensor<1x256x128xbf16>):
      %o = loom.linear o %in : tensor<1x256x128xbf16> -> tensor<1x256x128xbf16>
      loom.yield %o : tensor<1x256x128xbf16>
    }
    %2 = loom.layer 2 (%1) {stage = 2} : (tensor<1x256x128xbf16>) -> tensor<1x256x128xbf16> {
    ^bb0(%in: tensor<1x256x128xbf16>):
      %o = loom.linear o %in : tensor<1x256x128xbf16> -> tensor<1x256x128xbf16>
      loom.yield %o : tensor<1x256x128xbf16>
    }
    %3 = loom.layer 3 (%2) {stage = 3} : (tensor<1x256x128xbf16>) -> tensor<1x256x128xbf16> {
    ^bb0(%in: tensor<1x256x128xbf16>):
      %o = loom.linear o %in : tensor<1x256x128xbf16> -> tensor<1x256x128xbf16>
      loom.yield %o : tensor<1x256x128xbf16>
    }
    return %3 : tensor<1x256x128xbf16>
  }
}

