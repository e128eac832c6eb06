

func.func @wrong_type(%x: tensor<1x16x64xbf16>, %dy: tensor<1x16x32xbf16>) {
  %y = loom.linear up %x : tensor<1x16x64xbf16> -> tensor<1x16x32xbf16>
  // expected-error @+1 {{cotangent of operand #0 has type 'tensor<1x16x32xbf16>', not the operand's 'tensor<1x16x64xbf16>'}}
  %d = loom.grad input %y(%dy) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x16x32xbf16>, (tensor<1x16x32xbf16>) -> tensor<1x16x32xbf16>
  return
}

