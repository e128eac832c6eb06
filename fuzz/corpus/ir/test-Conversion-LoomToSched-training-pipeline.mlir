// A training step on 2 pipeline stages, each stage's passes in its
// schedule's order (docs/training.md, "Pipeline schedules"): two MLP layers
// (64 -> 128 -> 64) of 4 x 16 tokens, layer 0 on stage 0 (chip 0), layer 1
// and the loss on stage 1 (chip 1), 4 microbatches of 1 sequence. F is a
// microbatch's forward pass (its first op: layer N's linear.up+activation),
// B its input gradients (grad.input.linear.down first), W its weight
// gradients (grad.weight.linear.down first); GPipe and 1F1B run B and W as
// one pass. Each F on stage 0 ends in a send of its result to stage 1
// (4 x 16 x 64 x 2 B / 4 microbatches = 2048 B), each backward pass on
// stage 1 in a send of its input gradient back.
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-partition-layers=stages=2 --loom-split-tokens="slices=1 microbatches=4 schedule=gpipe" --loom-derive-training-step --convert-loom-to-sched | loom-translate --sched-to-json | FileCheck %s --check-prefix=GPIPE
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-partition-layers="stages=2 data-parallel=2" --loom-split-tokens="slices=1 microbatches=4 schedule=1f1b" --loom-derive-training-step --convert-loom-to-sched | loom-translate --sched-to-json | FileCheck %s --check-prefix=ONEF
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-partition-layers=stages=2 --loom-split-tokens="slices=1 microbatches=4 schedule=zb-h1" --loom-derive-training-step --convert-loom-to-sched | loom-translate --sched-to-json | FileCheck %s --check-prefix=ZB
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-partition-layers=stages=2 --loom-split-tokens="slices=1 microbatches=4 schedule=zb-h2" --loom-derive-training-step --convert-loom-to-sched | loom-translate --sched-to-json | FileCheck %s --check-prefix=ZB2

// Every send meets its receive: the programs run.
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-partition-layers="stages=2 data-parallel=2" --loom-split-tokens="slices=1 microbatches=4 schedule=1f1b" --loom-derive-training-step --convert-loom-to-sched | loom-translate --sched-to-json | loom-sim - | FileCheck %s --check-prefix=SIM
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-partition-layers=stages=2 --loom-split-tokens="slices=1 microbatches=4 schedule=zb-h1" --loom-derive-training-step --convert-loom-to-sched | loom-translate --sched-to-json | loom-sim - | FileCheck %s --check-prefix=SIM
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-partition-layers=stages=2 --loom-split-tokens="slices=1 microbatches=4 schedule=zb-h2" --loom-derive-training-step --convert-loom-to-sched | loom-translate --sched-to-json | loom-sim - | FileCheck %s --check-prefix=SIM
// SIM: makespan: {{.*}} ({{[24]}} chips
// SIM-NOT: error

// loom-check-memory accounts each stage as the simulated step holds it:
// its layer's model states (262144 B) and GPipe's 4 microbatches in flight
// of 10240 B kept by its layer (and 2048 B by the loss, on the last
// stage).
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-partition-layers=stages=2 --loom-split-tokens="slices=1 microbatches=4 schedule=gpipe" --loom-derive-training-step --loom-check-memory=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=MEMORY
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-partition-layers=stages=2 --loom-split-tokens="slices=1 microbatches=4 schedule=gpipe" --loom-derive-training-step --convert-loom-to-sched | loom-translate --sched-to-json | loom-sim - | FileCheck %s --check-prefix=PEAK
// MEMORY: remark: stage 0 of the training step: 303.10 kB of 16.00 GB per chip (0%): optimizer state and master weights 196.61 kB, activations kept for the backward pass 40.96 kB, weights 32.77 kB, gradients 32.77 kB
// MEMORY: remark: stage 1 of the training step: 311.30 kB of 16.00 GB per chip (0%): optimizer state and master weights 196.61 kB, activations kept for the backward pass 49.15 kB, weights 32.77 kB, gradients 32.77 kB
// PEAK: 0 {{.*}} 303.10 kB
// PEAK: 1 {{.*}} 311.30 kB

// ZB-H2 holds 2p - 1 = 3 microbatches on each stage (its order's peak in
// flight, from an F to its W): 3 x 10240 B on stage 0, 3 x 12288 B on the
// last.
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-partition-layers=stages=2 --loom-split-tokens="slices=1 microbatches=4 schedule=zb-h2" --loom-derive-training-step --loom-check-memory=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=MEMORY2
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-partition-layers=stages=2 --loom-split-tokens="slices=1 microbatches=4 schedule=zb-h2" --loom-derive-training-step --convert-loom-to-sched | loom-translate --sched-to-json | loom-sim - | FileCheck %s --check-prefix=PEAK2
// MEMORY2: remark: stage 0 of the training step: 292.86 kB of 16.00 GB per chip (0%): optimizer state and master weights 196.61 kB, weights 32.77 kB, gradients 32.77 kB, activations kept for the backward pass 30.72 kB
// MEMORY2: remark: stage 1 of the training step: 299.01 kB of 16.00 GB per chip (0%): optimizer state and master weights 196.61 kB, activations kept for the backward pass 36.86 kB, weights 32.77 kB, gradients 32.77 kB
// PEAK2: 0 {{.*}} 292.86 kB
// PEAK2: 1 {{.*}} 299.01 kB

// GPipe: stage 0 runs F0 F1 F2 F3, then the backward passes 0 to 3, each
// after its receive of the gradient; each microbatch's kept activations
// (10240 B) from its F to its backward pass.
// GPIPE-LABEL: "chips":[{"id":0,"tasks":[
// GPIPE: "name":"layer0.kept.mb0","bytes":10240
// GPIPE: "name":"layer0.linear.up+activation",{{.*}}"slice":0,
// GPIPE: {"kind":"send","to":1,"tag":0,"bytes":2048,
// GPIPE: "name":"layer0.linear.up+activation",{{.*}}"slice":1,
// GPIPE: {"kind":"send","to":1,"tag":1,"bytes":2048,
// GPIPE: "name":"layer0.linear.up+activation",{{.*}}"slice":2,
// GPIPE: "name":"layer0.linear.up+activation",{{.*}}"slice":3,
// GPIPE: {"kind":"send","to":1,"tag":3,"bytes":2048,
// GPIPE-NEXT: {"kind":"recv","from":1,"tag":4,"bytes":2048,
// GPIPE-NEXT: "name":"layer0.backward.grad.input.linear.down",{{.*}}"slice":0,
// GPIPE-NEXT: "name":"layer0.backward.grad.weight.linear.down",{{.*}}"slice":0,
// GPIPE: {"kind":"free","alloc":3,
// GPIPE: "name":"layer0.backward.grad.input.linear.down",{{.*}}"slice":1,
// GPIPE: "name":"layer0.backward.grad.input.linear.down",{{.*}}"slice":2,
// GPIPE: "name":"layer0.backward.grad.input.linear.down",{{.*}}"slice":3,
// GPIPE: "name":"layer0.optimizer_update"
// The last stage: F0 to F3 (each after its receive, and the loss), then
// each backward pass with the loss's gradient first, its input gradient
// sent back at its end.
// GPIPE-LABEL: {"id":1,"tasks":[
// GPIPE: {"kind":"recv","from":0,"tag":0,"bytes":2048,
// GPIPE: "name":"layer1.linear.up+activation",{{.*}}"slice":0,
// GPIPE: "name":"epilogue.loss",{{.*}}"slice":0,
// GPIPE: {"kind":"recv","from":0,"tag":1,"bytes":2048,
// GPIPE: "name":"layer1.linear.up+activation",{{.*}}"slice":1,
// GPIPE: "name":"layer1.linear.up+activation",{{.*}}"slice":2,
// GPIPE: "name":"layer1.linear.up+activation",{{.*}}"slice":3,
// GPIPE: "name":"epilogue.backward.grad.input.loss",{{.*}}"slice":0,
// GPIPE: "name":"layer1.backward.grad.input.linear.down",{{.*}}"slice":0,
// GPIPE: "name":"layer1.backward.grad.weight.linear.down",{{.*}}"slice":0,
// GPIPE: {"kind":"send","to":0,"tag":4,"bytes":2048,
// GPIPE: "name":"layer1.backward.grad.input.linear.down",{{.*}}"slice":1,
// GPIPE: {"kind":"send","to":0,"tag":5,"bytes":2048,
// GPIPE: "name":"layer1.backward.grad.input.linear.down",{{.*}}"slice":3,
// GPIPE: {"kind":"send","to":0,"tag":7,"bytes":2048,
// GPIPE: "name":"layer1.optimizer_update"

// 1F1B on 2 replicas (replica 0 on chips 0 and 1, replica 1 on chips 3
// and 2): stage 0 warms up with p - s - 1 = 1 forward, then F and backward
// in turn: F0 F1 B0 F2 B1 F3 B2 B3; the last stage F0 B0 F1 B1 ... Each
// stage's gradients are all-reduced over that stage's replicas after the
// last microbatch's backward pass: chips 0 and 3, chips 1 and 2.
// ONEF-LABEL: "chips":[{"id":0,"tasks":[
// ONEF: "name":"layer0.linear.up+activation",{{.*}}"slice":0,
// ONEF: "name":"layer0.linear.up+activation",{{.*}}"slice":1,
// ONEF: "name":"layer0.backward.grad.input.linear.down",{{.*}}"slice":0,
// ONEF: "name":"layer0.linear.up+activation",{{.*}}"slice":2,
// ONEF: "name":"layer0.backward.grad.input.linear.down",{{.*}}"slice":1,
// ONEF: "name":"layer0.linear.up+activation",{{.*}}"slice":3,
// ONEF: "name":"layer0.backward.grad.input.linear.down",{{.*}}"slice":2,
// ONEF: "name":"layer0.backward.grad.input.linear.down",{{.*}}"slice":3,
// ONEF: {"kind":"collective_start","collective":"all_reduce","group":[0,3],"tag":{{[0-9]+}},"bytes":32768,
// ONEF: "name":"layer0.optimizer_update"
// ONEF-LABEL: {"id":1,"tasks":[
// ONEF: "name":"layer1.linear.up+activation",{{.*}}"slice":0,
// ONEF: "name":"layer1.backward.grad.input.linear.down",{{.*}}"slice":0,
// ONEF: {"kind":"send","to":0,
// ONEF: "name":"layer1.linear.up+activation",{{.*}}"slice":1,
// ONEF: "name":"layer1.backward.grad.input.linear.down",{{.*}}"slice":1,
// ONEF: "name":"layer1.linear.up+activation",{{.*}}"slice":2,
// ONEF: "name":"layer1.backward.grad.input.linear.down",{{.*}}"slice":2,
// ONEF: "name":"layer1.linear.up+activation",{{.*}}"slice":3,
// ONEF: "name":"layer1.backward.grad.input.linear.down",{{.*}}"slice":3,
// ONEF: {"kind":"collective_start","collective":"all_reduce","group":[1,2],"tag":{{[0-9]+}},"bytes":32768,
// ONEF: "name":"layer1.optimizer_update"
// ONEF-LABEL: {"id":2,"tasks":[
// ONEF: {"kind":"recv","from":3,"tag":0,"bytes":2048,

// ZB-H1: 1F1B's order with B and W apart; stage s holds its first s W
// passes back. Stage 0 runs each W right after its B: F0 F1 B0 W0 F2 B1
// W1 F3 B2 W2 B3 W3.
// ZB-LABEL: "chips":[{"id":0,"tasks":[
// ZB: "name":"layer0.linear.up+activation",{{.*}}"slice":0,
// ZB: "name":"layer0.linear.up+activation",{{.*}}"slice":1,
// ZB: "name":"layer0.backward.grad.input.linear.down",{{.*}}"slice":0,
// ZB: "name":"layer0.backward.grad.weight.linear.down",{{.*}}"slice":0,
// ZB: "name":"layer0.linear.up+activation",{{.*}}"slice":2,
// ZB: "name":"layer0.backward.grad.input.linear.down",{{.*}}"slice":1,
// ZB: "name":"layer0.backward.grad.weight.linear.down",{{.*}}"slice":1,
// ZB: "name":"layer0.linear.up+activation",{{.*}}"slice":3,
// ZB: "name":"layer0.backward.grad.input.linear.down",{{.*}}"slice":2,
// ZB: "name":"layer0.backward.grad.weight.linear.down",{{.*}}"slice":2,
// ZB: "name":"layer0.backward.grad.input.linear.down",{{.*}}"slice":3,
// ZB: "name":"layer0.backward.grad.weight.linear.down",{{.*}}"slice":3,
// The last stage (s = 1) holds one W back: F0 B0 F1 B1 W0 F2 B2 W1 F3 B3
// W2 W3. Each B ends in the send of its input gradient, before its W;
// the kept activations are freed after the W.
// ZB-LABEL: {"id":1,"tasks":[
// ZB: "name":"layer1.linear.up+activation",{{.*}}"slice":0,
// ZB: "name":"layer1.backward.grad.input.linear.down",{{.*}}"slice":0,
// ZB: {"kind":"send","to":0,"tag":2,"bytes":2048,
// ZB: "name":"layer1.linear.up+activation",{{.*}}"slice":1,
// ZB: "name":"layer1.backward.grad.input.linear.down",{{.*}}"slice":1,
// ZB: {"kind":"send","to":0,"tag":4,"bytes":2048,
// ZB-NEXT: "name":"layer1.backward.grad.weight.linear.down",{{.*}}"slice":0,
// ZB: {"kind":"free","alloc":5,
// ZB: "name":"layer1.linear.up+activation",{{.*}}"slice":2,
// ZB: "name":"layer1.backward.grad.input.linear.down",{{.*}}"slice":2,
// ZB: "name":"layer1.backward.grad.weight.linear.down",{{.*}}"slice":1,
// ZB: "name":"layer1.linear.up+activation",{{.*}}"slice":3,
// ZB: "name":"layer1.backward.grad.input.linear.down",{{.*}}"slice":3,
// ZB: "name":"layer1.backward.grad.weight.linear.down",{{.*}}"slice":2,
// ZB: "name":"layer1.backward.grad.weight.linear.down",{{.*}}"slice":3,
// ZB: "name":"layer1.optimizer_update"

// ZB-H2 (p = 2): stage 0 runs 2p - 1 = 3 forwards before its first B,
// then W passes where it would wait for a gradient: F0 F1 F2 B0 W0 B1 F3
// B2 W1 W2 B3 W3.
// ZB2-LABEL: "chips":[{"id":0,"tasks":[
// ZB2: "name":"layer0.linear.up+activation",{{.*}}"slice":0,
// ZB2: "name":"layer0.linear.up+activation",{{.*}}"slice":1,
// ZB2: "name":"layer0.linear.up+activation",{{.*}}"slice":2,
// ZB2: "name":"layer0.backward.grad.input.linear.down",{{.*}}"slice":0,
// ZB2: "name":"layer0.backward.grad.weight.linear.down",{{.*}}"slice":0,
// ZB2: "name":"layer0.backward.grad.input.linear.down",{{.*}}"slice":1,
// ZB2: "name":"layer0.linear.up+activation",{{.*}}"slice":3,
// ZB2: "name":"layer0.backward.grad.input.linear.down",{{.*}}"slice":2,
// ZB2: "name":"layer0.backward.grad.weight.linear.down",{{.*}}"slice":1,
// ZB2: "name":"layer0.backward.grad.weight.linear.down",{{.*}}"slice":2,
// ZB2: "name":"layer0.backward.grad.input.linear.down",{{.*}}"slice":3,
// ZB2: "name":"layer0.backward.grad.weight.linear.down",{{.*}}"slice":3,
// ZB2: "name":"layer0.optimizer_update"
// The last stage: F0 B0 F1 B1 F2 B2 W0 F3 B3 W1 W2 W3, its third
// microbatch's F before the first W (3 in flight).
// ZB2-LABEL: {"id":1,"tasks":[
// ZB2: "name":"layer1.linear.up+activation",{{.*}}"slice":0,
// ZB2: "name":"layer1.backward.grad.input.linear.down",{{.*}}"slice":0,
// ZB2: "name":"layer1.linear.up+activation",{{.*}}"slice":1,
// ZB2: "name":"layer1.backward.grad.input.linear.down",{{.*}}"slice":1,
// ZB2: "name":"layer1.linear.up+activation",{{.*}}"slice":2,
// ZB2: "name":"layer1.backward.grad.input.linear.down",{{.*}}"slice":2,
// ZB2: "name":"layer1.backward.grad.weight.linear.down",{{.*}}"slice":0,
// ZB2: "name":"layer1.linear.up+activation",{{.*}}"slice":3,
// ZB2: "name":"layer1.backward.grad.input.linear.down",{{.*}}"slice":3,
// ZB2: "name":"layer1.backward.grad.weight.linear.down",{{.*}}"slice":1,
// ZB2: "name":"layer1.backward.grad.weight.linear.down",{{.*}}"slice":2,
// ZB2: "name":"layer1.backward.grad.weight.linear.down",{{.*}}"slice":3,
// ZB2: "name":"layer1.optimizer_update"

module {
  func.func @mlp(%x: tensor<4x16x64xbf16>) -> tensor<4x16x64xbf16> {
    %0 = loom.layer 0 (%x) {kind = "mlp"} : (tensor<4x16x64xbf16>) -> tensor<4x16x64xbf16> {
    ^bb0(%in: tensor<4x16x64xbf16>):
      %u = loom.linear up %in : tensor<4x16x64xbf16> -> tensor<4x16x128xbf16>
      %a = loom.activation gelu %u : tensor<4x16x128xbf16>
      %d = loom.linear down %a : tensor<4x16x128xbf16> -> tensor<4x16x64xbf16>
      loom.yield %d : tensor<4x16x64xbf16>
    }
    %1 = loom.layer 1 (%0) {kind = "mlp"} : (tensor<4x16x64xbf16>) -> tensor<4x16x64xbf16> {
    ^bb0(%in: tensor<4x16x64xbf16>):
      %u = loom.linear up %in : tensor<4x16x64xbf16> -> tensor<4x16x128xbf16>
      %a = loom.activation gelu %u : tensor<4x16x128xbf16>
      %d = loom.linear down %a : tensor<4x16x128xbf16> -> tensor<4x16x64xbf16>
      loom.yield %d : tensor<4x16x64xbf16>
    }
    return %1 : tensor<4x16x64xbf16>
  }
}
