// loom-plan's per-stage memory comes from the planning pipeline's own run:
// memory-remarks=true has its loom-check-memory remark on each stage, and
// without it the pipeline is silent.
// RUN: loom-opt %s --loom-plan-pipeline="stages=2 memory-remarks=true" -o /dev/null 2>&1 | FileCheck %s
// RUN: loom-opt %s --loom-plan-pipeline="stages=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// CHECK: :[[@LINE+9]]:10: remark: stage 0 (layers 0-0): 9.22 kB of 16.00 GB per chip (0%): weights of layers 0-0 8.19 kB, activations in flight 1.02 kB
// CHECK: :[[@LINE+13]]:10: remark: stage 1 (layers 1-1): 9.22 kB of 16.00 GB per chip (0%): weights of layers 1-1 8.19 kB, activations in flight 1.02 kB
// CHECK-NOT: remark
// QUIET-NOT: remark

// A layer per stage, each one 64 x 64 bf16 linear: 64 x 64 x 2 B = 8.19 kB
// of weights and an 8 x 64 bf16 result, 1.02 kB, in flight.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @two(%x: tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    ^bb0(%in: tensor<1x8x64xbf16>):
      %h = loom.linear up %in : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      loom.yield %h : tensor<1x8x64xbf16>
    }
    %b = loom.layer 1 (%a) : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    ^bb0(%in: tensor<1x8x64xbf16>):
      %h = loom.linear up %in : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      loom.yield %h : tensor<1x8x64xbf16>
    }
    return %b : tensor<1x8x64xbf16>
  }
}
