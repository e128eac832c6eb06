

func.func @yield_type(%x: tensor<4xf32>) -> tensor<4xbf16> {
  %0 = loom.layer 0 (%x) : (tensor<4xf32>) -> tensor<4xbf16> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'loom.yield' op yields 1 values whose types do not match the layer's 1 result types}}
    loom.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xbf16>
}

