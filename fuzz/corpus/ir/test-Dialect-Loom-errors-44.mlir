

func.func @swiglu_integer(%g: tensor<1x8x128xi32>) {
  // expected-error @+1 {{'loom.swiglu' op expects gate to have a floating-point element type, got 'tensor<1x8x128xi32>'}}
  %0 = loom.swiglu %g, %g : tensor<1x8x128xi32>
  return
}

