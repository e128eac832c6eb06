// Two replicas of a 2-stage pipeline on v5e-4 (dp = 2, tp = 1, one slice of
// 8 tokens): the DeviceMesh lays the (one-chip) tensor-parallel blocks out
// in a snake, stage by stage and replica by replica, so replica 0 runs on
// chips 0 -> 1 and replica 1 on chips 3 -> 2, neighbours both; each
// replica's stage 0 sends its slice to its own stage 1.
// By hand: a 128 x 128 bf16 weight is 32768 B; the slice's 8 x 128 bf16
// activations 2048 B; a linear reads 2048 + 32768 B and writes 2048 B in
// 2 x 8 x 128 x 128 = 262144 FLOPs.
// RUN: loom-opt %s --convert-loom-to-sched | FileCheck %s

// CHECK: sched.chip 0 {
// CHECK-NEXT: sched.alloc weights 32768 "layer0.weights"
// CHECK-NEXT: %[[A0:[0-9]+]] = sched.alloc activations 2048 "slice0.activations"
// CHECK-NEXT: %[[U0:[0-9]+]] = sched.compute "layer0.linear.up" deps(%[[A0]]) {bytes = 36864 : i64, flops = 262144 : i64, layer = 0 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: sched.send to 1 deps(%[[U0]]) {bytes = 2048 : i64, tag = 0 : i64}
// CHECK-NEXT: sched.free %[[A0]] deps(%[[U0]])
// CHECK-NEXT: }
// CHECK-NEXT: sched.chip 1 {
// CHECK-NEXT: sched.alloc weights 32768 "layer1.weights"
// CHECK-NEXT: %[[R1:[0-9]+]] = sched.recv from 0 {bytes = 2048 : i64, tag = 0 : i64}
// CHECK-NEXT: %[[A1:[0-9]+]] = sched.alloc activations 2048 "slice0.activations" deps(%[[R1]])
// CHECK-NEXT: %[[D1:[0-9]+]] = sched.compute "layer1.linear.down" deps(%[[A1]])
// CHECK-NEXT: sched.free %[[A1]] deps(%[[D1]])
// CHECK-NEXT: }
// CHECK-NEXT: sched.chip 2 {
// CHECK-NEXT: sched.alloc weights 32768 "layer1.weights"
// CHECK-NEXT: sched.recv from 3 {bytes = 2048 : i64, tag = 1 : i64}
// CHECK: sched.chip 3 {
// CHECK-NEXT: sched.alloc weights 32768 "layer0.weights"
// CHECK: sched.compute "layer0.linear.up"
// CHECK-NEXT: sched.send to 2 deps(%{{[0-9]+}}) {bytes = 2048 : i64, tag = 1 : i64}
// CHECK-NOT: sched.chip
module attributes {loom.parallel = #loom.parallel<dp = 2>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @replicas(%x: tensor<1x8x128xbf16>) -> tensor<1x8x128xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [8]>} {
    %a = loom.layer 0 (%x) {stage = 0} : (tensor<1x8x128xbf16>) -> tensor<1x8x128xbf16> {
    ^bb0(%in: tensor<1x8x128xbf16>):
      %h = loom.linear up %in : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
      loom.yield %h : tensor<1x8x128xbf16>
    }
    %b = loom.layer 1 (%a) {stage = 1} : (tensor<1x8x128xbf16>) -> tensor<1x8x128xbf16> {
    ^bb0(%in: tensor<1x8x128xbf16>):
      %h = loom.linear down %in : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
      loom.yield %h : tensor<1x8x128xbf16>
    }
    return %b : tensor<1x8x128xbf16>
  }
}
