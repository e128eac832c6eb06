// What loom-derive-training-step refuses, each naming what would do.
// RUN: loom-opt %s -split-input-file -verify-diagnostics --loom-derive-training-step
// RUN: not loom-opt %s -split-input-file --loom-derive-training-step="microbatches=3" 2>&1 | FileCheck %s --check-prefix=MICRO
// RUN: not loom-opt %s -split-input-file --loom-derive-training-step="microbatches=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not loom-opt %s -split-input-file --loom-derive-training-step="optimizer=adam" 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not loom-opt %s -split-input-file --loom-derive-training-step="state-type=f16" 2>&1 | FileCheck %s --check-prefix=STATE
// RUN: not loom-opt %s -split-input-file --loom-derive-training-step="master-type=bf8" 2>&1 | FileCheck %s --check-prefix=MASTER
// MICRO: error: 3 microbatches do not divide the batch of 4 (valid: 1, 2, 4)
// ZERO: error: microbatches must be at least 1, got 0
// OPT: error: unknown optimizer 'adam' (valid: adamw, adafactor, sgd)
// STATE: error: state-type 'f16' is not a type it takes (valid: f32, bf16)
// MASTER: error: master-type 'bf8' is not a type it takes (valid: f32, bf16, none)

func.func @batch(%x: tensor<4x16x64xbf16>) -> tensor<4x16x64xbf16> {
  %0 = loom.layer 0 (%x) : (tensor<4x16x64xbf16>) -> tensor<4x16x64xbf16> {
  ^bb0(%in: tensor<4x16x64xbf16>):
    %o = loom.linear o %in : tensor<4x16x64xbf16> -> tensor<4x16x64xbf16>
    loom.yield %o : tensor<4x16x64xbf16>
  }
  return %0 : tensor<4x16x64xbf16>
}

// -----

// expected-error @+1 {{returns 2 values; a training step needs the model's one output}}
func.func @two(%x: tensor<1x16x64xbf16>) -> (tensor<1x16x64xbf16>, tensor<1x16x64xbf16>) {
  %o = loom.linear o %x : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %o, %o : tensor<1x16x64xbf16>, tensor<1x16x64xbf16>
}

// -----

func.func @twice(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  %o = loom.linear o %x : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  // expected-error @+1 {{the function already has a training step}}
  %l = loom.loss cross_entropy %o : tensor<1x16x64xbf16> -> tensor<f32>
  return %o : tensor<1x16x64xbf16>
}

// -----

func.func @gathered(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  %0 = loom.layer 0 (%x) : (tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x64xbf16>):
    // expected-error @+1 {{cannot be differentiated: a weight-gathered layer is not trained (plan training with tp-layout 1d or 2d)}}
    loom.gather_weights {bytes = 8192 : i64, group = "tp", group_size = 2 : i64}
    %o = loom.linear o %in : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    loom.yield %o : tensor<1x16x64xbf16>
  }
  return %0 : tensor<1x16x64xbf16>
}

// -----

// expected-error @+1 {{a decode step is not trained: derive the training step from a prefill (or DiT) module}}
module attributes {loom.model = #loom.model<name = "x", family = "llama", mode = decode, batch = 1, seq = 100>} {
  func.func @f(%x: tensor<1x1x64xbf16>) -> tensor<1x1x64xbf16> {
    %0 = loom.layer 0(%x) {kind = "llama"} : (tensor<1x1x64xbf16>) -> tensor<1x1x64xbf16> {
    ^bb0(%h: tensor<1x1x64xbf16>):
      %1 = loom.attention %h, %h, %h {heads = 4, kv_heads = 4, head_dim = 16, causal, cached = 100} : tensor<1x1x64xbf16>, tensor<1x1x64xbf16> -> tensor<1x1x64xbf16>
      loom.yield %1 : tensor<1x1x64xbf16>
    }
    return %0 : tensor<1x1x64xbf16>
  }
}
