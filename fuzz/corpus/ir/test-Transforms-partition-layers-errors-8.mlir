

// For the option runs above: tp = 2 on v5e-4 (HUGEDP) and a 3-layer model
// on v5e-16 (TILE); with stages=2 they plan.
module attributes {loom.parallel = #loom.parallel<tp = 2>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @tp2(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    %b = loom.layer 1 (%a) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %b : tensor<1x8x16xbf16>
  }
}

