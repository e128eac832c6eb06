

// A batch of 2 does not split over 4 chips.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
  // expected-error @+1 {{weight-gathered cannot split the batch of 2 over tp = 4 chips: each chip runs an equal share of the sequences; valid group sizes on v5e-8: 2}}
  func.func @small(%x: tensor<2x8x128xbf16>) -> tensor<2x8x128xbf16> {
    %y = loom.layer 0 (%x) : (tensor<2x8x128xbf16>) -> tensor<2x8x128xbf16> {
    ^bb0(%in: tensor<2x8x128xbf16>):
      %u = loom.linear up %in : tensor<2x8x128xbf16> -> tensor<2x8x128xbf16>
      loom.yield %u : tensor<2x8x128xbf16>
    }
    return %y : tensor<2x8x128xbf16>
  }
}

