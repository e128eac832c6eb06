// What a training step's pipeline schedule refuses, at the op that asks
// for it: a name that is none (the valid ones named), a schedule that needs
// more microbatches than it has, and one the step's stages cannot run.
// RUN: loom-opt %s -split-input-file -verify-diagnostics --loom-derive-training-step --convert-loom-to-sched

// loom-split-tokens' schedule= (it sets the microbatches the schedule
// orders), on a causal model cut into 2 stages.
// RUN: not loom-opt %S/../Transforms/Inputs/causal-2-stages.mlir --loom-split-tokens="slices=1 schedule=1f2b" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not loom-opt %S/../Transforms/Inputs/causal-2-stages.mlir --loom-split-tokens="slices=1 schedule=zb-h1" 2>&1 | FileCheck %s --check-prefix=FEW
// RUN: not loom-opt %S/../Transforms/Inputs/causal-2-stages.mlir --loom-split-tokens="slices=1 schedule=zb-h2" 2>&1 | FileCheck %s --check-prefix=FEW2
// RUN: loom-opt %S/../Transforms/Inputs/causal-2-stages.mlir --loom-split-tokens="slices=1 microbatches=1 schedule=gpipe" | FileCheck %s --check-prefix=GPIPE
// RUN: loom-opt %S/../Transforms/Inputs/causal-2-stages.mlir --loom-split-tokens="slices=1 schedule=circular" | FileCheck %s --check-prefix=CIRCULAR
// UNKNOWN: causal-2-stages.mlir:6:3: error: unknown pipeline schedule '1f2b' (valid: gpipe, 1f1b, interleaved, zb-h1, circular, zb-h2)
// FEW: causal-2-stages.mlir:6:3: error: the zb-h1 schedule needs at least as many microbatches as stages (2), got 1
// FEW2: causal-2-stages.mlir:6:3: error: the zb-h2 schedule needs at least 2 x stages - 1 (3) microbatches, got 1
// GPIPE: loom.pipeline = #loom.pipeline<stages = 2, slices = [256]>
// CIRCULAR: loom.pipeline = #loom.pipeline<stages = 2, slices = [256], schedule = "circular">

// GPipe runs one chunk a stage: virtual stages need interleaved or
// circular.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  // expected-error @+1 {{convert-loom-to-sched: a training step cannot run its pipeline: the gpipe schedule runs one model chunk a stage, got 2}}
  func.func @virtual(%x: tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [16], microbatches = 2, virtual_stages = 2>} {
    %0 = loom.layer 0 (%x) {stage = 0} : (tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    ^bb0(%in: tensor<2x16x64xbf16>):
      %u = loom.linear up %in : tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
      loom.yield %u : tensor<2x16x64xbf16>
    }
    %1 = loom.layer 1 (%0) {stage = 1} : (tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    ^bb0(%in: tensor<2x16x64xbf16>):
      %u = loom.linear up %in : tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
      loom.yield %u : tensor<2x16x64xbf16>
    }
    %2 = loom.layer 2 (%1) {stage = 2} : (tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    ^bb0(%in: tensor<2x16x64xbf16>):
      %u = loom.linear up %in : tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
      loom.yield %u : tensor<2x16x64xbf16>
    }
    %3 = loom.layer 3 (%2) {stage = 3} : (tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    ^bb0(%in: tensor<2x16x64xbf16>):
      %u = loom.linear up %in : tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
      loom.yield %u : tensor<2x16x64xbf16>
    }
    return %3 : tensor<2x16x64xbf16>
  }
}

