

func.func @yield_outside_layer(%x: tensor<4xf32>) {
  // expected-error @+1 {{'loom.yield' op expects parent op 'loom.layer'}}
  loom.yield %x : tensor<4xf32>
}

