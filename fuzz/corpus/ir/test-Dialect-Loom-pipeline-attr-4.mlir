

func.func @unstaged(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16>
    attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [8]>} {
  // expected-error @+1 {{'loom.layer' op of a pipelined function has no stage}}
  %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
  ^bb0(%in: tensor<1x8x16xbf16>):
    loom.yield %in : tensor<1x8x16xbf16>
  }
  return %a : tensor<1x8x16xbf16>
}

