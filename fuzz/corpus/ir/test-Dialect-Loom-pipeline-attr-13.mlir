

// Microbatches must divide the batch the layers run.
// expected-error @+1 {{'loom.pipeline' runs 3 microbatches, which do not divide the batch of 4 sequences (valid: 1, 2, 4)}}
func.func @microbatches_uneven(%x: tensor<4x8x16xbf16>) -> tensor<4x8x16xbf16>
    attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [8], microbatches = 3>} {
  %a = loom.layer 0 (%x) {stage = 0} : (tensor<4x8x16xbf16>) -> tensor<4x8x16xbf16> {
  ^bb0(%in: tensor<4x8x16xbf16>):
    loom.yield %in : tensor<4x8x16xbf16>
  }
  return %a : tensor<4x8x16xbf16>
}

