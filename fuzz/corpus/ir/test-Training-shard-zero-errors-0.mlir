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

