

// Tasks and buffers are named by layer index, in model order.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @numbered(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    // expected-error @+1 {{'loom.layer' op has index 1 but is layer #0 of the model; convert-loom-to-sched needs layers numbered 0, 1, ... in order}}
    %a = loom.layer 1 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %a : tensor<1x8x16xbf16>
  }
}

