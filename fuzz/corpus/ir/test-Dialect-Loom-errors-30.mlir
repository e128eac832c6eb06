

func.func @timestep_embed_odd_dim(%t: tensor<2xf32>) {
  // expected-error @+1 {{'loom.timestep_embed' op expects an even embedding dim (sin and cos halves), got 257}}
  %0 = loom.timestep_embed %t : tensor<2xf32> -> tensor<2x257xf32>
  return
}

