

func.func @layer_arg_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'loom.layer' op input #0 has type 'tensor<4xf32>' but body argument #0 has type 'tensor<4xbf16>'}}
  loom.layer 0 (%x) : (tensor<4xf32>) -> () {
  ^bb0(%a: tensor<4xbf16>):
    loom.yield
  }
  return
}

