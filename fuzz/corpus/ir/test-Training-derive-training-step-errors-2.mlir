

func.func @twice(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  %o = loom.linear o %x : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  // expected-error @+1 {{the function already has a training step}}
  %l = loom.loss cross_entropy %o : tensor<1x16x64xbf16> -> tensor<f32>
  return %o : tensor<1x16x64xbf16>
}

