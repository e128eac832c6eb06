

func.func @concat_rank(%t: tensor<6x64xbf16>, %i: tensor<1x16x64xbf16>) {
  // expected-error @+1 {{'loom.concat' op input #0 of shape [6, 64] does not match the result [1, 22, 64] outside dimension 1}}
  %0 = loom.concat %t, %i {dim = 1} : (tensor<6x64xbf16>, tensor<1x16x64xbf16>) -> tensor<1x22x64xbf16>
  return
}

