

// A tensor that does not lead with the batch cannot be split by batch.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
  func.func @table(%x: tensor<4x8x128xbf16>) -> tensor<4x8x128xbf16> {
    %y = loom.layer 0 (%x) : (tensor<4x8x128xbf16>) -> tensor<4x8x128xbf16> {
    ^bb0(%in: tensor<4x8x128xbf16>):
      // expected-error @+1 {{weight-gathered splits dim 0, the batch of 4, of every tensor, but this op's result does not lead with it}}
      %t = loom.param "scale_shift_table" : tensor<768xbf16>
      %u = loom.linear up %in : tensor<4x8x128xbf16> -> tensor<4x8x128xbf16>
      loom.yield %u : tensor<4x8x128xbf16>
    }
    return %y : tensor<4x8x128xbf16>
  }
}

