

func.func @forward_after_backward(%x: tensor<1x16x64xbf16>, %dy: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  %0 = loom.layer_grad 0 (%x, %dy) : (tensor<1x16x64xbf16>, tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x64xbf16>, %d: tensor<1x16x64xbf16>):
    %y = loom.linear o %in {loom.kept} : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    %dx = loom.grad input %y(%d) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x16x64xbf16>, (tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16>
    // expected-error @+1 {{is a forward op after the backward ops of its layer_grad}}
    %z = loom.linear o %in {loom.recompute} : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    loom.yield %dx : tensor<1x16x64xbf16>
  }
  return %0 : tensor<1x16x64xbf16>
}

