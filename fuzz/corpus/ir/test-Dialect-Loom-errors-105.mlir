

func.func @rope_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'loom.rope' op expects a tensor of rank >= 1, got 'tensor<f32>'}}
  %0 = loom.rope %x {head_dim = 2} : tensor<f32>
  return
}

