

func.func @timestep_embed_input_rank(%t: tensor<2x1xf32>) {
  // expected-error @+1 {{'loom.timestep_embed' op expects input of rank 1 [batch], got [2, 1]}}
  %0 = loom.timestep_embed %t : tensor<2x1xf32> -> tensor<2x256xf32>
  return
}

