// Requests loom-split-tokens refuses or adjusts, on the hand-written
// pipelined models of Inputs/ and below.
// RUN: loom-opt %s -split-input-file -verify-diagnostics --loom-split-tokens

// Lengths that do not cut the causal model's 256 tokens.
// RUN: not loom-opt %S/Inputs/causal-2-stages.mlir --loom-split-tokens=slices=100,100 2>&1 | FileCheck %s --check-prefix=SUM
// RUN: not loom-opt %S/Inputs/causal-2-stages.mlir --loom-split-tokens=slices=9223372036854775807,9223372036854775807,258 2>&1 | FileCheck %s --check-prefix=WRAP
// RUN: not loom-opt %S/Inputs/causal-2-stages.mlir --loom-split-tokens=slices=128,128,8 2>&1 | FileCheck %s --check-prefix=OVER
// RUN: not loom-opt %S/Inputs/causal-2-stages.mlir --loom-split-tokens=slices=256,0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not loom-opt %S/Inputs/causal-2-stages.mlir --loom-split-tokens=slices=512 2>&1 | FileCheck %s --check-prefix=MANY
// RUN: not loom-opt %S/Inputs/causal-2-stages.mlir --loom-split-tokens=slices=3 2>&1 | FileCheck %s --check-prefix=UNEVEN
// RUN: not loom-opt %S/Inputs/causal-2-stages.mlir --loom-split-tokens=granularity=48 2>&1 | FileCheck %s --check-prefix=GRAN
// RUN: not loom-opt %S/Inputs/causal-2-stages.mlir --loom-split-tokens=slices=abc 2>&1 | FileCheck %s --check-prefix=TEXT
// SUM: error: the slices add up to 200 tokens, but the sequence has 256
// The sum is checked before it can overflow.
// WRAP: error: the slices up to #0 add up to more than the sequence's 256 tokens
// OVER: error: the slices up to #2 add up to more than the sequence's 256 tokens
// ZERO: error: slice #1 has 0 tokens; every slice needs at least one
// MANY: error: cannot cut 256 tokens into 512 slices: the count must be between 1 and the number of tokens
// UNEVEN: error: 256 tokens do not split into 3 equal slices; give the lengths instead
// GRAN: error: granularity 48 does not divide the 256-token sequence
// TEXT: error: slices must be 'auto', a count or comma-separated lengths; cannot read 'abc'

// Options of the other pipelining mode are errors; warmup-steps even when
// it names the default, 1 (the option's own default is -1).
// RUN: not loom-opt %S/Inputs/causal-2-stages.mlir --loom-split-tokens=warmup-steps=3 2>&1 | FileCheck %s --check-prefix=LLMWARM
// RUN: not loom-opt %S/Inputs/causal-2-stages.mlir --loom-split-tokens=warmup-steps=1 2>&1 | FileCheck %s --check-prefix=LLMWARM
// RUN: not loom-opt %S/Inputs/dit-2-stages.mlir --loom-split-tokens=granularity=8 2>&1 | FileCheck %s --check-prefix=DITGRAN
// LLMWARM: error: warmup-steps applies to PipeFusion patches of diffusion models, not to token slices
// DITGRAN: error: granularity applies to token slices of causal models; PipeFusion patches are equal

// PipeFusion's patches are equal: a count that does not divide the image
// gets the counts that do (a list of lengths is no way out).
// RUN: not loom-opt %S/Inputs/dit-2-stages.mlir --loom-split-tokens=slices=3 2>&1 | FileCheck %s --check-prefix=PATCHCOUNT
// RUN: not loom-opt %S/Inputs/dit-2-stages.mlir --loom-split-tokens=slices=32,16,16 2>&1 | FileCheck %s --check-prefix=PATCHLIST
// RUN: not loom-opt %S/Inputs/dit-2-stages.mlir --loom-split-tokens=warmup-steps=60 2>&1 | FileCheck %s --check-prefix=WARM
// PATCHCOUNT: error: 64 tokens do not split into 3 equal slices; PipeFusion patches are equal, so the count must divide the tokens (near 3: 1, 2, 4, 8)
// PATCHLIST: error: PipeFusion patches must be equal; got 3 slices of different lengths
// WARM: error: warmup-steps must be between 0 and the 4 denoising steps, got 60

// A granularity that would cut the sequence into more units than the
// slicing table holds (512; loom/Partition/SplitTokens.h) is coarsened to
// the least multiple that fits, with a warning naming it; one within the
// table is used as given, without a warning. (The causal model stretched to
// 1024 tokens.)
// RUN: sed 's/256/1024/g' %S/Inputs/causal-2-stages.mlir > %t.1024.mlir
// RUN: loom-opt %t.1024.mlir --loom-split-tokens=granularity=1 2>&1 | FileCheck %s --check-prefix=COARSE
// RUN: loom-opt %t.1024.mlir --loom-split-tokens=granularity=2 2>&1 -o /dev/null | count 0
// COARSE: warning: granularity 1 cuts the 1024-token sequence into 1024 units, more than the 512 the slicing table holds; using granularity 2 (512 units)
// COARSE: loom.pipeline = #loom.pipeline<stages = 2, slices = [{{([0-9]*[02468], )*[0-9]*[02468]}}]>

// expected-error @+1 {{loom-split-tokens needs a target: run loom-set-target first (e.g. --loom-set-target=topology=v5e-16), or import with --target}}
module {
}

// -----

// expected-error @+1 {{loom-split-tokens found no model function with loom.layer ops}}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
}

// -----

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
