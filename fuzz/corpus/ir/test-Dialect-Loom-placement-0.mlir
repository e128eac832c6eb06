// #loom.placement: which chips each group occupies. It
// round-trips, and the verifier refuses what cannot tile, at the attribute
// or on the module against loom.parallel and the target, naming the valid
// blocks and sub-blocks.
// RUN: loom-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: loom-opt %s -split-input-file -verify-diagnostics | loom-opt -split-input-file -verify-diagnostics | FileCheck %s

// The default block order is not printed.
// CHECK: loom.placement = #loom.placement<2x4, tp 2x1 inside sp>
module attributes {loom.parallel = #loom.parallel<tp = 2, sp = 4>, loom.placement = #loom.placement<2x4, tp 2x1 inside sp, stages inside replicas>, loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
}

