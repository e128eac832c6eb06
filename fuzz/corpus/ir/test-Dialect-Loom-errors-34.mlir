

func.func @timestep_embed_integer_result(%t: tensor<2xi64>) {
  // expected-error @+1 {{'loom.timestep_embed' op expects the result to have a floating-point element type, got 'tensor<2x256xi64>'}}
  %0 = loom.timestep_embed %t : tensor<2xi64> -> tensor<2x256xi64>
  return
}

//===----------------------------------------------------------------------===//
// loom.rms_norm / loom.layer_norm / loom.rope
//===----------------------------------------------------------------------===//

