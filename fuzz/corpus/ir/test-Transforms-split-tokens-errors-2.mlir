

module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  // expected-error @+1 {{loom-split-tokens needs stages: run loom-partition-layers first}}
  func.func @unstaged(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %a : tensor<1x8x16xbf16>
  }
}

// Microbatches divide the batch, are at least one, and are for token
// slices (split-tokens-microbatches.mlir has the batch of 2).
// RUN: not loom-opt %S/split-tokens-microbatches.mlir --loom-split-tokens=microbatches=3 2>&1 | FileCheck %s --check-prefix=MBUNEVEN
// RUN: not loom-opt %S/split-tokens-microbatches.mlir --loom-split-tokens=microbatches=0 2>&1 | FileCheck %s --check-prefix=MBZERO
// RUN: not loom-opt %S/Inputs/dit-2-stages.mlir --loom-split-tokens=microbatches=2 2>&1 | FileCheck %s --check-prefix=MBPATCH
// MBUNEVEN: error: 3 microbatches do not divide the batch of 2 sequences (valid: 1, 2)
// MBZERO: error: microbatches must be at least 1, got 0
// MBPATCH: error: microbatches apply to token slices of causal models; PipeFusion patches of a batch run together
