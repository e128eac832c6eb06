

// Before the layer's ops, not among them.
module {
  func.func @f(%x: tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    ^bb0(%in: tensor<1x8x64xbf16>):
      %u = loom.linear up %in : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      // expected-error @+1 {{'loom.gather_weights' op must be the first op of its loom.layer}}
      loom.gather_weights {bytes = 8192 : i64, group = "tp", group_size = 2 : i64}
      loom.yield %u : tensor<1x8x64xbf16>
    }
    return %y : tensor<1x8x64xbf16>
  }
}

