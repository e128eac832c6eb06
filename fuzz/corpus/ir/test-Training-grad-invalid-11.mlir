

func.func @dropout_rate(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rate must be in [0, 1), got 1.5}}
  %y = loom.dropout %x {rate = 1.5 : f64} : tensor<1x16x64xbf16>
  return %y : tensor<1x16x64xbf16>
}

