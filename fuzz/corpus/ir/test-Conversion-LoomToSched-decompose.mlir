// Decomposed collective matmuls (convert-loom-to-sched{decompose}, Wang et
// al., ASPLOS 2023; docs/overlap.md): a sequence-parallel MLP on a ring of
// 4 chips (tp = 4, v5e-4's 2x2 block: ring order 0, 2, 3, 1, so chip 0's
// next rank is chip 2 and its previous chip 1), one slice of 32 tokens.
//
// By hand, per chip: the all-gather moves 1x32x256 bf16 = 16384 B in all,
// a block of 4096 B per chip; per step half a block (2048 B) goes each way.
// - All-gather before gate and up (both read the gathered tokens): chip 0
//   sends its own halves at once, multiplies its own rows (1/4 of each
//   matmul: 2 x 32 x 256 x 128 / 4 = 524288 FLOPs; the weights 65536 B
//   every time, plus a quarter of the token traffic), and then, for each
//   of the 3 steps, receives a half-block from each neighbour, forwards it
//   (but after the last step) and multiplies those rows.
// - Reduce-scatter after down: 4 partials of 524288 FLOPs; after partial
//   k >= 1 the partial sums received from both neighbours are added to
//   chip 0's own (read 2 x 4096, write 4096 = 12288 B; 2048 elements on the
//   vector unit) and sent on, but after the last.
// Partial k + 1 waits only for partial k: the TensorCore runs it while the
// sums travel.
// RUN: loom-opt %s --convert-loom-to-sched=decompose=true | FileCheck %s
// Without decompose the collectives stay whole.
// RUN: loom-opt %s --convert-loom-to-sched | FileCheck %s --check-prefix=WHOLE
// The all-reduce form (two-layer.mlir, tp = 2, no sequence parallelism): the
// reduce-scatter half runs under o's two partials (a block of 8192 B to the
// one neighbour), the all-gather half stays a collective, since the residual
// add after it is no matmul to hide it under. Its partials split o's output
// columns (the all-gather gathers them back), so each reads the whole
// input, 32 x 128 x 2 = 8192 B, and half of the weights and the output:
// 8192 + (65536 + 16384) / 2 = 49152 B (by rows it would be 77824 B).
// RUN: loom-opt %S/two-layer.mlir --convert-loom-to-sched=decompose=true | FileCheck %s --check-prefix=AR
// loom-sim runs it.
// RUN: loom-opt %s --convert-loom-to-sched=decompose=true | loom-translate --sched-to-json | loom-sim - --json | FileCheck %s --check-prefix=SIM

// CHECK-LABEL: sched.chip 0 {
// CHECK:      %[[N:[0-9]+]] = sched.compute "layer0.rms_norm"
// CHECK-NEXT: sched.send to 2 deps(%[[N]]) {bytes = 2048 : i64, tag = 0 : i64}
// CHECK-NEXT: sched.send to 1 deps(%[[N]]) {bytes = 2048 : i64, tag = 1 : i64}
// CHECK-NEXT: %[[G0:[0-9]+]] = sched.compute "layer0.linear.gate.part0" deps(%[[N]]) {bytes = 71680 : i64, flops = 524288 : i64
// CHECK-NEXT: %[[U0:[0-9]+]] = sched.compute "layer0.linear.up+swiglu.part0" deps(%[[G0]])
// CHECK-NEXT: %[[R0A:[0-9]+]] = sched.recv from 1 {bytes = 2048 : i64, tag = 0 : i64}
// CHECK-NEXT: %[[R0B:[0-9]+]] = sched.recv from 2 {bytes = 2048 : i64, tag = 1 : i64}
// CHECK-NEXT: sched.send to 2 deps(%[[R0A]]) {bytes = 2048 : i64, tag = 2 : i64}
// CHECK-NEXT: sched.send to 1 deps(%[[R0B]]) {bytes = 2048 : i64, tag = 3 : i64}
// CHECK-NEXT: %[[G1:[0-9]+]] = sched.compute "layer0.linear.gate.part1" deps(%[[U0]], %[[R0A]], %[[R0B]])
// CHECK-NEXT: sched.compute "layer0.linear.up+swiglu.part1" deps(%[[G1]])
// CHECK:      sched.compute "layer0.linear.gate.part2"
// CHECK:      %[[R2A:[0-9]+]] = sched.recv from 1 {bytes = 2048 : i64, tag = 4 : i64}
// CHECK-NEXT: %[[R2B:[0-9]+]] = sched.recv from 2 {bytes = 2048 : i64, tag = 5 : i64}
// CHECK-NEXT: %[[G3:[0-9]+]] = sched.compute "layer0.linear.gate.part3" deps(%{{[0-9]+}}, %[[R2A]], %[[R2B]])
// CHECK-NEXT: %[[U3:[0-9]+]] = sched.compute "layer0.linear.up+swiglu.part3" deps(%[[G3]])
// CHECK-NEXT: %[[D0:[0-9]+]] = sched.compute "layer0.linear.down.part0" deps(%[[U3]]) {bytes = 71680 : i64, flops = 524288 : i64
// CHECK-NEXT: sched.send to 2 deps(%[[D0]]) {bytes = 2048 : i64, tag = 6 : i64}
// CHECK-NEXT: sched.send to 1 deps(%[[D0]]) {bytes = 2048 : i64, tag = 7 : i64}
// CHECK-NEXT: %[[D1:[0-9]+]] = sched.compute "layer0.linear.down.part1" deps(%[[D0]])
// CHECK-NEXT: %[[S0A:[0-9]+]] = sched.recv from 1 {bytes = 2048 : i64, tag = 6 : i64}
// CHECK-NEXT: %[[S0B:[0-9]+]] = sched.recv from 2 {bytes = 2048 : i64, tag = 7 : i64}
// CHECK-NEXT: %[[A1:[0-9]+]] = sched.compute "layer0.reduce_scatter.accumulate1" deps(%[[D1]], %[[S0A]], %[[S0B]]) {bytes = 12288 : i64, flops = 0 : i64, layer = 0 : i64, op = "loom.reduce_scatter", slice = 0 : i64, vector_ops = 2048 : i64}
// CHECK-NEXT: sched.send to 2 deps(%[[A1]]) {bytes = 2048 : i64, tag = 8 : i64}
// CHECK-NEXT: sched.send to 1 deps(%[[A1]]) {bytes = 2048 : i64, tag = 9 : i64}
// CHECK-NEXT: %[[D2:[0-9]+]] = sched.compute "layer0.linear.down.part2" deps(%[[D1]])
// CHECK:      %[[D3:[0-9]+]] = sched.compute "layer0.linear.down.part3" deps(%[[D2]])
// CHECK-NEXT: %[[S2A:[0-9]+]] = sched.recv from 1 {bytes = 2048 : i64, tag = 10 : i64}
// CHECK-NEXT: %[[S2B:[0-9]+]] = sched.recv from 2 {bytes = 2048 : i64, tag = 11 : i64}
// CHECK-NEXT: %[[A3:[0-9]+]] = sched.compute "layer0.reduce_scatter.accumulate3" deps(%[[D3]], %[[S2A]], %[[S2B]])
// CHECK-NEXT: sched.compute "layer0.add" deps(%[[A3]])
// CHECK-NOT:  sched.send
// CHECK-NOT:  collective_start
// CHECK:      }
// Chip 2, chip 0's next rank, receives chip 0's first halves (tag 0) and
// sends its own back the other way (tag 1).
// CHECK-LABEL: sched.chip 2 {
// CHECK:      sched.send to 3 {{.*}}tag = 0 : i64
// CHECK-NEXT: sched.send to 0 {{.*}}tag = 1 : i64
// CHECK:      sched.recv from 0 {bytes = 2048 : i64, tag = 0 : i64}
// CHECK-NEXT: sched.recv from 3 {bytes = 2048 : i64, tag = 1 : i64}

// WHOLE-LABEL: sched.chip 0 {
// WHOLE:      sched.collective_start all_gather
// WHOLE:      sched.compute "layer0.linear.gate"
// WHOLE:      sched.compute "layer0.linear.down"
// WHOLE-NEXT: sched.collective_start reduce_scatter
// WHOLE-NOT:  sched.send

// AR-LABEL: sched.chip 0 {
// AR:      %[[O0:[0-9]+]] = sched.compute "layer0.linear.o.part0" deps(%{{[0-9]+}}) {bytes = 49152 : i64, flops = 1048576 : i64
// AR-NEXT: sched.send to 1 deps(%[[O0]]) {bytes = 8192 : i64, tag = [[TAG:[0-9]+]] : i64}
// AR-NEXT: %[[O1:[0-9]+]] = sched.compute "layer0.linear.o.part1" deps(%[[O0]])
// AR-NEXT: %[[R:[0-9]+]] = sched.recv from 1 {bytes = 8192 : i64, tag = [[TAG]] : i64}
// AR-NEXT: %[[A:[0-9]+]] = sched.compute "layer0.all_reduce.accumulate1" deps(%[[O1]], %[[R]]) {bytes = 24576 : i64
// AR-NEXT: %[[S:[0-9]+]] = sched.collective_start all_gather deps(%[[A]]) {bytes = 16384 : i64, group = array<i64: 0, 1>
// AR-NEXT: %[[D:[0-9]+]] = sched.collective_done %[[S]]
// AR-NEXT: sched.compute "layer0.add+rms_norm" deps(%[[D]])

// SIM: "makespan_s":

module attributes {loom.parallel = #loom.parallel<tp = 4, sequence_parallel = true>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @mlp(%x: tensor<1x8x256xbf16>) -> tensor<1x8x256xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [32]>} {
    %a = loom.layer 0 (%x) {stage = 0 : i64} : (tensor<1x8x256xbf16>) -> tensor<1x8x256xbf16> {
    ^bb0(%in: tensor<1x8x256xbf16>):
      %h = loom.rms_norm %in : tensor<1x8x256xbf16>
      %g = loom.all_gather %h {group = "tp", group_size = 4 : i64, dim = 1 : i64} : tensor<1x8x256xbf16> -> tensor<1x32x256xbf16>
      %gate = loom.linear gate %g {loom.split = #loom.split<column, 4>} : tensor<1x32x256xbf16> -> tensor<1x32x128xbf16>
      %up = loom.linear up %g {loom.split = #loom.split<column, 4>} : tensor<1x32x256xbf16> -> tensor<1x32x128xbf16>
      %s = loom.swiglu %gate, %up : tensor<1x32x128xbf16>
      %d = loom.linear down %s {loom.split = #loom.split<row, 4>} : tensor<1x32x128xbf16> -> tensor<1x32x256xbf16>
      %r = loom.reduce_scatter %d {group = "tp", group_size = 4 : i64, dim = 1 : i64} : tensor<1x32x256xbf16> -> tensor<1x8x256xbf16>
      %o = loom.add %in, %r : tensor<1x8x256xbf16>, tensor<1x8x256xbf16>
      loom.yield %o : tensor<1x8x256xbf16>
    }
    return %a : tensor<1x8x256xbf16>
  }
}
