

func.func @timestep_embed_batch(%t: tensor<2xf32>) {
  // expected-error @+1 {{'loom.timestep_embed' op expects the result batch 4 to equal the input batch 2}}
  %0 = loom.timestep_embed %t : tensor<2xf32> -> tensor<4x256xf32>
  return
}

