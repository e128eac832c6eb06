

func.func @embed_float_ids(%ids: tensor<1x8xf32>) {
  // expected-error @+1 {{'loom.embed' op expects integer ids, got 'tensor<1x8xf32>'}}
  %0 = loom.embed %ids {vocab = 128} : tensor<1x8xf32> -> tensor<1x8x64xbf16>
  return
}

