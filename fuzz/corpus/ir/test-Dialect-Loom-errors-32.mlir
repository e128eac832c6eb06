

func.func @timestep_embed_result_rank(%t: tensor<2xf32>) {
  // expected-error @+1 {{'loom.timestep_embed' op expects result of rank 2 [batch, dim], got [2, 1, 256]}}
  %0 = loom.timestep_embed %t : tensor<2xf32> -> tensor<2x1x256xf32>
  return
}

