

func.func @embed_zero_vocab(%ids: tensor<1x8xi32>) {
  // expected-error @+1 {{attribute 'vocab' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = loom.embed %ids {vocab = 0} : tensor<1x8xi32> -> tensor<1x8x64xbf16>
  return
}

