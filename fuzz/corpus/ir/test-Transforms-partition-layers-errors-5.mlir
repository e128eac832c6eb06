

// Hand-edited IR whose layers are not numbered 0, 1, ... in order.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @numbered(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    // expected-error @+1 {{'loom.layer' op has index 0 but is layer #1 of the model; loom-partition-layers needs layers numbered 0, 1, ... in order}}
    %b = loom.layer 0 (%a) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %b : tensor<1x8x16xbf16>
  }
}

