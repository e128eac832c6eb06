// RUN: loom-opt %s | loom-opt | FileCheck %s
// RUN: loom-opt %s --mlir-print-op-generic | loom-opt | FileCheck %s

// CHECK-LABEL: sched.program attributes {target = #loom.target<"tpu-v5e", topology = "v5e-4", shape = [2, 2], wrap_axes = [], chip = {{.*}}>}
// CHECK: sched.chip 0 {
// CHECK-NEXT: %[[W:.*]] = sched.alloc weights 1024 "layer0.weights"
// CHECK-NEXT: %[[A:.*]] = sched.alloc activations 64 "slice0.activations"
// CHECK-NEXT: %[[C:.*]] = sched.compute "layer0.linear.q" deps(%[[A]]) {bytes = 2048 : i64, flops = 4096 : i64, layer = 0 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[R:.*]] = sched.collective_start all_reduce deps(%[[C]]) {bytes = 64 : i64, group = array<i64: 0, 1>, tag = 0 : i64}
// CHECK-NEXT: %[[D:.*]] = sched.collective_done %[[R]]
// CHECK-NEXT: %[[S:.*]] = sched.send to 2 deps(%[[D]]) {bytes = 64 : i64, tag = 1 : i64}
// CHECK-NEXT: sched.free %[[A]] deps(%[[S]])
// CHECK: sched.chip 1 {
// CHECK: sched.collective_start all_gather
// CHECK-NEXT: sched.collective_done
// CHECK: sched.chip 2 {
// CHECK-NEXT: sched.recv from 0 {bytes = 64 : i64, tag = 1 : i64}
// CHECK-NEXT: sched.compute "layer1.attention" {bytes = 1 : i64, flops = 2 : i64, layer = 1 : i64, op = "loom.attention", slice = 0 : i64, step = 3 : i64}
sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    %w = sched.alloc weights 1024 "layer0.weights"
    %a = sched.alloc activations 64 "slice0.activations"
    %c = sched.compute "layer0.linear.q" deps(%a) {flops = 4096, bytes = 2048, op = "loom.linear", layer = 0, slice = 0}
    %r = sched.collective_start all_reduce deps(%c) {group = array<i64: 0, 1>, bytes = 64, tag = 0}
    %d = sched.collective_done %r
    %s = sched.send to 2 deps(%d) {bytes = 64, tag = 1}
    %f = sched.free %a deps(%s)
  }
  sched.chip 1 {
    %r = sched.collective_start all_reduce {group = array<i64: 0, 1>, bytes = 64, tag = 0}
    %d = sched.collective_done %r
    %g = sched.collective_start all_gather deps(%d) {group = array<i64: 1, 3>, bytes = 32, tag = 2}
    %h = sched.collective_done %g
  }
  sched.chip 2 {
    %r = sched.recv from 0 {bytes = 64, tag = 1}
    %c = sched.compute "layer1.attention" {flops = 2, bytes = 1, op = "loom.attention", layer = 1, slice = 0, step = 3}
  }
  sched.chip 3 {
    %g = sched.collective_start all_gather {group = array<i64: 1, 3>, bytes = 32, tag = 2}
    %h = sched.collective_done %g
  }
}
