

func.func @concat_sum(%t: tensor<1x6x64xbf16>, %i: tensor<1x16x64xbf16>) {
  // expected-error @+1 {{'loom.concat' op inputs add up to 22 along dimension 1 but the result has 24}}
  %0 = loom.concat %t, %i {dim = 1} : (tensor<1x6x64xbf16>, tensor<1x16x64xbf16>) -> tensor<1x24x64xbf16>
  return
}

