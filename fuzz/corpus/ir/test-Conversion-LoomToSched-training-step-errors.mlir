// What convert-loom-to-sched refuses of a training step, naming why (the
// pipeline schedules' refusals: test/Training/pipeline-schedule-errors.mlir).
// RUN: not loom-opt %s --loom-set-target=topology=v5e-4 --loom-derive-training-step --convert-loom-to-sched=decompose=true 2>&1 | FileCheck %s --check-prefix=DECOMPOSE

// A planned function's microbatches are the step's.
// RUN: not loom-opt %s --loom-set-target=topology=v5e-4 --loom-partition-layers --loom-split-tokens="slices=1 microbatches=2" --loom-derive-training-step=microbatches=3 2>&1 | FileCheck %s --check-prefix=MICRO
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-partition-layers --loom-split-tokens="slices=1 microbatches=2" --loom-derive-training-step | FileCheck %s --check-prefix=ACCUMULATE

// MICRO: error: microbatches=3 disagrees with the plan's #loom.pipeline, which runs 2 microbatches; give the same number or leave it out
// ACCUMULATE: loom.grad weight {{.*}}accumulate
// DECOMPOSE: error: convert-loom-to-sched: a training step is lowered with interleave 1, without decompose and without scatter-handover

module {
  func.func @mini(%x: tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    %0 = loom.layer 0 (%x) : (tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    ^bb0(%in: tensor<2x16x64xbf16>):
      %u = loom.linear up %in : tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
      loom.yield %u : tensor<2x16x64xbf16>
    }
    %1 = loom.layer 1 (%0) : (tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    ^bb0(%in: tensor<2x16x64xbf16>):
      %u = loom.linear down %in : tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
      loom.yield %u : tensor<2x16x64xbf16>
    }
    return %1 : tensor<2x16x64xbf16>
  }
}
