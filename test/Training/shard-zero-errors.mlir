// What loom-shard-zero refuses, each naming what would do.
// RUN: loom-opt %s -split-input-file -verify-diagnostics --loom-shard-zero
// RUN: not loom-opt %s -split-input-file --loom-shard-zero=stage=4 2>&1 | FileCheck %s --check-prefix=STAGE
// RUN: not loom-opt %s -split-input-file --loom-shard-zero=fsdp=3 2>&1 | FileCheck %s --check-prefix=FSDP
// A mistyped option fails.
// RUN: not loom-opt %s -split-input-file --loom-shard-zero=stages=2 2>&1 | FileCheck %s --check-prefix=TYPO

// STAGE: stage 4 is not a ZeRO stage (valid: 1 optimizer state, 2 and gradients, 3 and weights)
// FSDP: fsdp 3 must be at least 2 and divide dp 4
// TYPO: no such option stages

// expected-error @+1 {{loom-shard-zero: has no training step whose model states to split: run loom-derive-training-step first}}
module {
  func.func @forward(%x: tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    ^bb0(%in: tensor<1x8x64xbf16>):
      %h = loom.linear up %in : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      loom.yield %h : tensor<1x8x64xbf16>
    }
    return %y : tensor<1x8x64xbf16>
  }
}

// -----

// One replica has nothing to split with.
// expected-error @+1 {{loom-shard-zero: fsdp 1 must be at least 2 and divide dp 1}}
module {
  func.func @step() {
    loom.optimizer_update {grad_type = bf16, layer = 0 : i64, master_type = f32, optimizer = #loom<optimizer adamw>, parameters = 64 : i64, state_elements = 128 : i64, state_type = f32, vector_ops_per_parameter = 16 : i64, weight_type = bf16}
    return
  }
}

// -----

// expected-error @+1 {{loom-shard-zero: the model states are split already (fsdp 2, zero 1)}}
module attributes {loom.parallel = #loom.parallel<dp = 2, fsdp = 2, zero = 1>} {
  func.func @step() {
    loom.optimizer_update {grad_type = bf16, layer = 0 : i64, master_type = f32, optimizer = #loom<optimizer adamw>, parameters = 64 : i64, state_elements = 128 : i64, state_type = f32, vector_ops_per_parameter = 16 : i64, weight_type = bf16}
    return
  }
}

// -----

module attributes {loom.parallel = #loom.parallel<dp = 4>} {
  func.func @step() {
    loom.optimizer_update {grad_type = bf16, layer = 0 : i64, master_type = f32, optimizer = #loom<optimizer adamw>, parameters = 64 : i64, state_elements = 128 : i64, state_type = f32, vector_ops_per_parameter = 16 : i64, weight_type = bf16}
    return
  }
}

// -----

// The attribute's own checks.
// expected-error @+1 {{fsdp 3 must divide dp 4: the model states are split within groups of fsdp data-parallel replicas}}
module attributes {loom.parallel = #loom.parallel<dp = 4, fsdp = 3, zero = 3>} {}

// -----

// expected-error @+1 {{zero 0 with fsdp 4: a group of fsdp > 1 replicas splits the model states at ZeRO stage 1, 2 or 3; fsdp 1 has zero 0}}
module attributes {loom.parallel = #loom.parallel<dp = 4, fsdp = 4>} {}

// -----

// expected-error @+1 {{zero 2 with fsdp 1}}
module attributes {loom.parallel = #loom.parallel<dp = 4, zero = 2>} {}
