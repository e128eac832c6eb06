

func.func @activation_integer(%x: tensor<1x8x64xi32>) {
  // expected-error @+1 {{'loom.activation' op expects the input to have a floating-point element type, got 'tensor<1x8x64xi32>'}}
  %0 = loom.activation relu %x : tensor<1x8x64xi32>
  return
}

