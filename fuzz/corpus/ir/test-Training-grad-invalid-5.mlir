

func.func @wrt_range(%x: tensor<1x16x64xbf16>, %dy: tensor<1x16x64xbf16>) {
  %y = loom.linear o %x : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  // expected-error @+1 {{wrt names operand #3, but the forward op has 1}}
  %d = loom.grad input %y(%dy) {cotangents_of = array<i64: 0>, wrt = array<i64: 3>} : tensor<1x16x64xbf16>, (tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16>
  return
}

