

// d_model split over the block's 2 rows: 129 does not (4 x 2 would not
// either).
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
  func.func @model(%x: tensor<1x8x129xbf16>) -> tensor<1x8x129xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x8x129xbf16>) -> tensor<1x8x129xbf16> {
    ^bb0(%in: tensor<1x8x129xbf16>):
      // expected-error @+1 {{cannot split d_model 2 ways (tp_x of 2 x 4): d_model 129 of this up projection is not divisible by tp_x = 2; valid tp_x x tp_y factorizations: none}}
      %u = loom.linear up %in : tensor<1x8x129xbf16> -> tensor<1x8x256xbf16>
      %d = loom.linear down %u : tensor<1x8x256xbf16> -> tensor<1x8x129xbf16>
      loom.yield %d : tensor<1x8x129xbf16>
    }
    return %y : tensor<1x8x129xbf16>
  }
}

