

func.func @weight_results(%x: tensor<1x16x64xbf16>, %dy: tensor<1x16x64xbf16>) {
  %y = loom.linear o %x : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  // expected-error @+1 {{of the weight part has no results}}
  %d = loom.grad weight %y(%dy) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x16x64xbf16>, (tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16>
  return
}

