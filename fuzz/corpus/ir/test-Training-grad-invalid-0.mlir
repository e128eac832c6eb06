// What the verifiers of loom.grad and loom.layer_grad refuse.
// RUN: loom-opt %s -split-input-file -verify-diagnostics

func.func @not_forward(%x: tensor<1x16x64xbf16>) {
  // expected-error @+1 {{differentiates the op that defines its first operand, which must be a forward loom op}}
  %d = loom.grad input %x(%x) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x16x64xbf16>, (tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16>
  return
}

