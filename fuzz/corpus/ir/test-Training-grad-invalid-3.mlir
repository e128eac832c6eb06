

func.func @no_weights(%x: tensor<1x16x64xbf16>, %dy: tensor<1x16x64xbf16>) {
  %y = loom.activation silu %x : tensor<1x16x64xbf16>
  // expected-error @+1 {{differentiates 'loom.activation', which has no weight part}}
  loom.grad weight %y(%dy) {cotangents_of = array<i64: 0>, wrt = array<i64>} : tensor<1x16x64xbf16>, (tensor<1x16x64xbf16>) -> ()
  return
}

