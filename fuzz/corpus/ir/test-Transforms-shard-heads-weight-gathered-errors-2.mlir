

// A batch of 1 splits nowhere.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
  // expected-error @+1 {{valid group sizes on v5e-8: none (a batch of 1 does not split over 2 or more chips)}}
  func.func @one(%x: tensor<1x8x128xbf16>) -> tensor<1x8x128xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x8x128xbf16>) -> tensor<1x8x128xbf16> {
    ^bb0(%in: tensor<1x8x128xbf16>):
      %u = loom.linear up %in : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
      loom.yield %u : tensor<1x8x128xbf16>
    }
    return %y : tensor<1x8x128xbf16>
  }
}

