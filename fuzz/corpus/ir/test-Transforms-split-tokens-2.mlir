

// 135 = 27 x 5 tokens: no multiple of 8 divides it, so slices are
// multiples of 3, the least divisor cutting it into at most 128 units. In
// units of W, with 135 tokens moving 2.109 W: one slice 6.219, two (69 +
// 66; 67.5 each is no multiple of 3) 2 + 2.109 + 1 + 1.078 = 6.187, three of
// 45 6.812.
// CHECK-LABEL: func.func @odd
// CHECK-SAME: loom.pipeline = #loom.pipeline<stages = 2, slices = [69, 66]>
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  func.func @odd(%x: tensor<1x135x128xbf16>) -> tensor<1x135x128xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [135]>} {
    %0 = loom.layer 0 (%x) {stage = 0} : (tensor<1x135x128xbf16>) -> tensor<1x135x128xbf16> {
    ^bb0(%in: tensor<1x135x128xbf16>):
      %o = loom.linear o %in : tensor<1x135x128xbf16> -> tensor<1x135x128xbf16>
      loom.yield %o : tensor<1x135x128xbf16>
    }
    %1 = loom.layer 1 (%0) {stage = 1} : (tensor<1x135x128xbf16>) -> tensor<1x135x128xbf16> {
    ^bb0(%in: tensor<1x135x128xbf16>):
      %o = loom.linear o %in : tensor<1x135x128xbf16> -> tensor<1x135x128xbf16>
      loom.yield %o : tensor<1x135x128xbf16>
    }
    return %1 : tensor<1x135x128xbf16>
  }
}

