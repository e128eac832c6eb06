

func.func @embed_integer_result(%ids: tensor<1x8xi32>) {
  // expected-error @+1 {{'loom.embed' op expects the result to have a floating-point element type, got 'tensor<1x8x64xi32>'}}
  %0 = loom.embed %ids {vocab = 128} : tensor<1x8xi32> -> tensor<1x8x64xi32>
  return
}

