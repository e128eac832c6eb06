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

