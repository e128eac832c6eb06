

// The gather must carry all of the layer's weights (two 64 x 64 bf16
// projections: 16384 bytes).
module attributes {loom.parallel = #loom.parallel<tp = 2, weight_gathered = true>} {
  func.func @f(%x: tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    ^bb0(%in: tensor<1x8x64xbf16>):
      // expected-error @+1 {{'loom.gather_weights' op gathers 8192 bytes, but the layer's weights are 16384 bytes; it must gather all of them}}
      loom.gather_weights {bytes = 8192 : i64, group = "tp", group_size = 2 : i64}
      %u = loom.linear up %in : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      %d = loom.linear down %u : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      loom.yield %d : tensor<1x8x64xbf16>
    }
    return %y : tensor<1x8x64xbf16>
  }
}

