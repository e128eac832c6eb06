

// expected-error @+1 {{returns 2 values; a training step needs the model's one output}}
func.func @two(%x: tensor<1x16x64xbf16>) -> (tensor<1x16x64xbf16>, tensor<1x16x64xbf16>) {
  %o = loom.linear o %x : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %o, %o : tensor<1x16x64xbf16>, tensor<1x16x64xbf16>
}

