

func.func @embed_result_shape(%ids: tensor<1x8xi32>) {
  // expected-error @+1 {{'loom.embed' op expects the result shape to be the ids shape [1, 8] plus a hidden dimension, got [1, 4, 64]}}
  %0 = loom.embed %ids {vocab = 128} : tensor<1x8xi32> -> tensor<1x4x64xbf16>
  return
}

