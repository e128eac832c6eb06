

// Over the module's weight-gathered group, of its size.
module attributes {loom.parallel = #loom.parallel<tp = 4>} {
  func.func @f(%x: tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    ^bb0(%in: tensor<1x8x64xbf16>):
      // expected-error @+1 {{'loom.gather_weights' op gathers over 2 chips, but the module's layout is #loom.parallel<tp = 4>; it needs #loom.parallel<tp = 2, weight_gathered = true>}}
      loom.gather_weights {bytes = 8192 : i64, group = "tp", group_size = 2 : i64}
      %u = loom.linear up %in : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      loom.yield %u : tensor<1x8x64xbf16>
    }
    return %y : tensor<1x8x64xbf16>
  }
}

