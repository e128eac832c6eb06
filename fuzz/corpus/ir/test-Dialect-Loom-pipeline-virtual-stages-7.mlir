

// Two stages of two chunks: the layers must use all four chunks.
// expected-error @+1 {{'loom.pipeline' has 4 chunks (stages x virtual_stages) but the layers use 2}}
func.func @short(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16>
    attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [8], virtual_stages = 2>} {
  %a = loom.layer 0 (%x) {stage = 0} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
  ^bb0(%in: tensor<1x8x16xbf16>):
    loom.yield %in : tensor<1x8x16xbf16>
  }
  %b = loom.layer 1 (%a) {stage = 1} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
  ^bb0(%in: tensor<1x8x16xbf16>):
    loom.yield %in : tensor<1x8x16xbf16>
  }
  return %b : tensor<1x8x16xbf16>
}

