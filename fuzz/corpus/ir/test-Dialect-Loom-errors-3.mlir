

func.func @yield_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = loom.layer 0 (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'loom.yield' op yields 0 values whose types do not match the layer's 1 result types}}
    loom.yield
  }
  return %0 : tensor<4xf32>
}

