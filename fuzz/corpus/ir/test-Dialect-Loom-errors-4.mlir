

func.func @yield_outside_layer(%x: tensor<4xf32>) {
  // expected-error @+1 {{'loom.yield' op expects parent op to be one of 'loom.layer, loom.layer_grad'}}
  loom.yield %x : tensor<4xf32>
}

