// What convert-loom-to-sched{decompose} refuses: a tensor-parallel group
// whose chips are not a ring of neighbours (a ring step must be one hop:
// here a line of 4 chips, 3 hops from the last back to the first), a slice
// whose rows do not split into one equal block per chip of the ring, and
// decompose with units interleaved (not built).
// RUN: loom-opt %s -split-input-file -verify-diagnostics --convert-loom-to-sched=decompose=true
// RUN: not loom-opt %S/two-layer.mlir --convert-loom-to-sched="decompose=true interleave=2" 2>&1 | FileCheck %s --check-prefix=INTERLEAVE

// INTERLEAVE: convert-loom-to-sched: decompose runs with interleave 1 only (units interleaved around decomposed collective matmuls are not built), got interleave 2

module attributes {loom.parallel = #loom.parallel<tp = 4, sequence_parallel = true>, loom.target = #loom.target<"line", topology = "line-4", shape = [1, 4], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.97e+14, peak_int8 = 3.94e+14, mxu_tile = 128, mxu_efficiency = 0.9568, hbm_capacity = 1.6e+10, hbm_bandwidth = 8.192e+11, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 4.5e+10, hop_latency = 1.0e-06>>} {
  func.func @line(%x: tensor<1x8x256xbf16>) -> tensor<1x8x256xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [32]>} {
    %a = loom.layer 0 (%x) {stage = 0 : i64} : (tensor<1x8x256xbf16>) -> tensor<1x8x256xbf16> {
    ^bb0(%in: tensor<1x8x256xbf16>):
      // expected-error @+1 {{convert-loom-to-sched: cannot decompose this collective over its 4 chips: they do not form a ring of neighbours on line-4 (chips 3 and 0 are 3 hops apart)}}
      %g = loom.all_gather %in {group = "tp", group_size = 4 : i64, dim = 1 : i64} : tensor<1x8x256xbf16> -> tensor<1x32x256xbf16>
      %up = loom.linear up %g {loom.split = #loom.split<column, 4>} : tensor<1x32x256xbf16> -> tensor<1x32x128xbf16>
      %d = loom.linear down %up {loom.split = #loom.split<row, 4>} : tensor<1x32x128xbf16> -> tensor<1x32x256xbf16>
      %r = loom.reduce_scatter %d {group = "tp", group_size = 4 : i64, dim = 1 : i64} : tensor<1x32x256xbf16> -> tensor<1x8x256xbf16>
      loom.yield %r : tensor<1x8x256xbf16>
    }
    return %a : tensor<1x8x256xbf16>
  }
}

