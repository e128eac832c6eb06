

func.func @past(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16>
    attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [8], virtual_stages = 1>} {
  %a = loom.layer 0 (%x) {stage = 0} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
  ^bb0(%in: tensor<1x8x16xbf16>):
    loom.yield %in : tensor<1x8x16xbf16>
  }
  %b = loom.layer 1 (%a) {stage = 1} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
  ^bb0(%in: tensor<1x8x16xbf16>):
    loom.yield %in : tensor<1x8x16xbf16>
  }
  // expected-error @+1 {{'loom.layer' op is on stage 2 but the pipeline has 2 stages}}
  %c = loom.layer 2 (%b) {stage = 2} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
  ^bb0(%in: tensor<1x8x16xbf16>):
    loom.yield %in : tensor<1x8x16xbf16>
  }
  return %c : tensor<1x8x16xbf16>
}
