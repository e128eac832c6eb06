

func.func @layer_norm_integer(%x: tensor<1x8x64xi32>) {
  // expected-error @+1 {{'loom.layer_norm' op expects the input to have a floating-point element type, got 'tensor<1x8x64xi32>'}}
  %0 = loom.layer_norm %x : tensor<1x8x64xi32>
  return
}

