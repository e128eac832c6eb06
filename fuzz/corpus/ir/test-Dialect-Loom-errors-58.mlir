

func.func @concat_mismatch(%t: tensor<1x6x64xbf16>, %i: tensor<1x16x32xbf16>) {
  // expected-error @+1 {{'loom.concat' op input #1 of shape [1, 16, 32] does not match the result [1, 22, 64] outside dimension 1}}
  %0 = loom.concat %t, %i {dim = 1} : (tensor<1x6x64xbf16>, tensor<1x16x32xbf16>) -> tensor<1x22x64xbf16>
  return
}

