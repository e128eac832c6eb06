

func.func @rope_integer(%x: tensor<1x2x4xi32>) {
  // expected-error @+1 {{'loom.rope' op expects the input to have a floating-point element type}}
  %0 = loom.rope %x {head_dim = 2} : tensor<1x2x4xi32>
  return
}

