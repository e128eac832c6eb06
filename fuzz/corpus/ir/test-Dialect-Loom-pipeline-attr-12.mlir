

// Microbatches of a batch of 4: the attribute prints them last, and they
// round-trip.
// CHECK: #loom.pipeline<stages = 2, slices = [4, 4], microbatches = 2>
func.func @microbatches(%x: tensor<4x8x16xbf16>) -> tensor<4x8x16xbf16>
    attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [4, 4], microbatches = 2>} {
  %a = loom.layer 0 (%x) {stage = 0} : (tensor<4x8x16xbf16>) -> tensor<4x8x16xbf16> {
  ^bb0(%in: tensor<4x8x16xbf16>):
    loom.yield %in : tensor<4x8x16xbf16>
  }
  %b = loom.layer 1 (%a) {stage = 1} : (tensor<4x8x16xbf16>) -> tensor<4x8x16xbf16> {
  ^bb0(%in: tensor<4x8x16xbf16>):
    loom.yield %in : tensor<4x8x16xbf16>
  }
  return %b : tensor<4x8x16xbf16>
}

