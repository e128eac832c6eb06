// What the verifiers of loom.grad and loom.layer_grad refuse.
// RUN: loom-opt %s -split-input-file -verify-diagnostics

func.func @not_forward(%x: tensor<1x16x64xbf16>) {
  // expected-error @+1 {{differentiates the op that defines its first operand, which must be a forward loom op}}
  %d = loom.grad input %x(%x) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x16x64xbf16>, (tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16>
  return
}

// -----

func.func @wrong_type(%x: tensor<1x16x64xbf16>, %dy: tensor<1x16x32xbf16>) {
  %y = loom.linear up %x : tensor<1x16x64xbf16> -> tensor<1x16x32xbf16>
  // expected-error @+1 {{cotangent of operand #0 has type 'tensor<1x16x32xbf16>', not the operand's 'tensor<1x16x64xbf16>'}}
  %d = loom.grad input %y(%dy) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x16x32xbf16>, (tensor<1x16x32xbf16>) -> tensor<1x16x32xbf16>
  return
}

// -----

func.func @wrong_cotangent(%x: tensor<1x16x64xbf16>, %dy: tensor<1x16x64xbf16>) {
  %y = loom.linear up %x : tensor<1x16x64xbf16> -> tensor<1x16x32xbf16>
  // expected-error @+1 {{cotangent of result #0 has type 'tensor<1x16x64xbf16>', not the result's 'tensor<1x16x32xbf16>'}}
  %d = loom.grad input %y(%dy) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x16x32xbf16>, (tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16>
  return
}

// -----

func.func @no_weights(%x: tensor<1x16x64xbf16>, %dy: tensor<1x16x64xbf16>) {
  %y = loom.activation silu %x : tensor<1x16x64xbf16>
  // expected-error @+1 {{differentiates 'loom.activation', which has no weight part}}
  loom.grad weight %y(%dy) {cotangents_of = array<i64: 0>, wrt = array<i64>} : tensor<1x16x64xbf16>, (tensor<1x16x64xbf16>) -> ()
  return
}

// -----

func.func @weight_results(%x: tensor<1x16x64xbf16>, %dy: tensor<1x16x64xbf16>) {
  %y = loom.linear o %x : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  // expected-error @+1 {{of the weight part has no results}}
  %d = loom.grad weight %y(%dy) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>} : tensor<1x16x64xbf16>, (tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16>
  return
}

// -----

func.func @wrt_range(%x: tensor<1x16x64xbf16>, %dy: tensor<1x16x64xbf16>) {
  %y = loom.linear o %x : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  // expected-error @+1 {{wrt names operand #3, but the forward op has 1}}
  %d = loom.grad input %y(%dy) {cotangents_of = array<i64: 0>, wrt = array<i64: 3>} : tensor<1x16x64xbf16>, (tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16>
  return
}

// -----

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

// -----

func.func @both(%x: tensor<1x16x64xbf16>, %dy: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  %0 = loom.layer_grad 0 (%x, %dy) : (tensor<1x16x64xbf16>, tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x64xbf16>, %d: tensor<1x16x64xbf16>):
    // expected-error @+1 {{is both kept and recomputed}}
    %y = loom.linear o %in {loom.kept, loom.recompute} : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    loom.yield %d : tensor<1x16x64xbf16>
  }
  return %0 : tensor<1x16x64xbf16>
}

// -----

func.func @offloaded_not_kept(%x: tensor<1x16x64xbf16>, %dy: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  %0 = loom.layer_grad 0 (%x, %dy) : (tensor<1x16x64xbf16>, tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x64xbf16>, %d: tensor<1x16x64xbf16>):
    // expected-error @+1 {{is offloaded but not kept (loom.offloaded goes with loom.kept)}}
    %y = loom.linear o %in {loom.recompute, loom.offloaded} : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    loom.yield %d : tensor<1x16x64xbf16>
  }
  return %0 : tensor<1x16x64xbf16>
}

// -----

func.func @offloaded_outside(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{'loom.offloaded' belongs on a forward op in a loom.layer_grad}}
  %y = loom.linear o %x {loom.offloaded} : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %y : tensor<1x16x64xbf16>
}

// -----

func.func @kept_outside(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{'loom.kept' belongs on a forward op in a loom.layer_grad}}
  %y = loom.linear o %x {loom.kept} : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %y : tensor<1x16x64xbf16>
}

// -----

func.func @dropout_rate(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rate must be in [0, 1), got 1.5}}
  %y = loom.dropout %x {rate = 1.5 : f64} : tensor<1x16x64xbf16>
  return %y : tensor<1x16x64xbf16>
}

// -----

func.func @state_type() {
  // expected-error @+1 {{state_type must be a float type, got 'i32'}}
  loom.optimizer_update {optimizer = #loom<optimizer adamw>, parameters = 8 : i64, state_elements = 16 : i64, state_type = i32, weight_type = bf16, grad_type = bf16, vector_ops_per_parameter = 16 : i64}
  return
}
