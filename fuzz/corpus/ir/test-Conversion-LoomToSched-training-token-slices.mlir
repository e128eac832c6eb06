// TeraPipe's token slices in a training step (docs/training.md, "Token
// slices"): two causal attention layers of 4 sequences of 64 tokens on 2
// stages, each microbatch's sequence cut into slices of 32, 16 and 16
// tokens. Each pass of a microbatch runs slice by slice, its forward
// passes in order and its backward passes in reverse (a slice's keys and
// values get their gradients from the later slices that attend to them);
// each slice keeps, hands on and is priced on its own tokens, a later one
// attending to more keys.
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-partition-layers=stages=2 --loom-split-tokens="slices=32,16,16 microbatches=2 schedule=1f1b" --loom-derive-training-step --convert-loom-to-sched | loom-translate --sched-to-json | FileCheck %s

// Every send meets its receive.
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-partition-layers=stages=2 --loom-split-tokens="slices=32,16,16 microbatches=4 schedule=zb-h1" --loom-derive-training-step --convert-loom-to-sched | loom-translate --sched-to-json | loom-sim - | FileCheck %s --check-prefix=SIM
// SIM: makespan: {{.*}} (2 chips
// SIM-NOT: error

// loom-check-memory holds what the simulated step holds: ZB-H2's units in
// flight, each its slice's share of a microbatch's activations.
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-partition-layers=stages=2 --loom-split-tokens="slices=32,16,16 microbatches=4 schedule=zb-h2" --loom-derive-training-step --loom-check-memory=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=MEMORY
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-partition-layers=stages=2 --loom-split-tokens="slices=32,16,16 microbatches=4 schedule=zb-h2" --loom-derive-training-step --convert-loom-to-sched | loom-translate --sched-to-json | loom-sim - | FileCheck %s --check-prefix=PEAK
// MEMORY: remark: stage 0 of the training step: 1.35 MB of {{.*}} activations kept for the backward pass 294.91 kB
// MEMORY: remark: stage 1 of the training step: 1.45 MB of
// PEAK: 0 {{.*}} 1.35 MB
// PEAK: 1 {{.*}} 1.45 MB

// Stage 0 under 1F1B (p = 2, m = 2): F of microbatch 0 and 1, then their
// backward passes. A slice of 32 tokens of a microbatch of 2 sequences
// keeps 2 x 32 x 256 x 2 B x 3 values = 98304 B and hands on 2 x 32 x 256
// x 2 B = 32768 B; one of 16, half. The attention's FLOPs follow the query/key pairs each slice
// visits: 32 x 33 / 2 = 528, then 16 x 32 + 136 = 648, then 16 x 48 +
// 136 = 904.
// CHECK-LABEL: "chips":[{"id":0,"tasks":[
// CHECK: "name":"layer0.kept.mb0.s0","bytes":98304
// CHECK: "name":"layer0.attention",{{.*}}"slice":0,{{.*}}"flops":2162688,
// CHECK: {"kind":"send","to":1,"tag":0,"bytes":32768,
// CHECK: "name":"layer0.kept.mb0.s1","bytes":49152
// CHECK: "name":"layer0.attention",{{.*}}"slice":1,{{.*}}"flops":2654208,
// CHECK: {"kind":"send","to":1,"tag":{{[0-9]+}},"bytes":16384,
// CHECK: "name":"layer0.kept.mb0.s2","bytes":49152
// CHECK: "name":"layer0.attention",{{.*}}"slice":2,{{.*}}"flops":3702784,
// CHECK: "name":"layer0.kept.mb1.s0"
// CHECK: "name":"layer0.attention",{{.*}}"slice":5,
// The backward passes, microbatch 0's last slice first, each after its
// receive of its slice's gradient; a later slice's costs more.
// CHECK: {"kind":"recv","from":1,"tag":{{[0-9]+}},"bytes":16384,
// CHECK-NEXT: "name":"layer0.backward.{{[^"]*}}"
// CHECK: "name":"layer0.backward.grad.input.attention",{{.*}}"slice":2,{{.*}}"flops":12959744,
// CHECK: "name":"layer0.backward.grad.input.attention",{{.*}}"slice":1,{{.*}}"flops":9289728,
// CHECK: {"kind":"recv","from":1,"tag":{{[0-9]+}},"bytes":32768,
// CHECK: "name":"layer0.backward.grad.input.attention",{{.*}}"slice":0,{{.*}}"flops":7569408,
// CHECK: "name":"layer0.backward.grad.input.attention",{{.*}}"slice":5,
// CHECK: "name":"layer0.optimizer_update"

module {
  func.func @block(%x: tensor<4x64x256xbf16>) -> tensor<4x64x256xbf16> {
    %0 = loom.layer 0 (%x) : (tensor<4x64x256xbf16>) -> tensor<4x64x256xbf16> {
    ^bb0(%in: tensor<4x64x256xbf16>):
      %h = loom.rms_norm %in : tensor<4x64x256xbf16>
      %a = loom.attention %h, %h, %h {heads = 4, kv_heads = 4, head_dim = 64, causal} : tensor<4x64x256xbf16>, tensor<4x64x256xbf16> -> tensor<4x64x256xbf16>
      %o = loom.linear o %a : tensor<4x64x256xbf16> -> tensor<4x64x256xbf16>
      loom.yield %o : tensor<4x64x256xbf16>
    }
    %1 = loom.layer 1 (%0) : (tensor<4x64x256xbf16>) -> tensor<4x64x256xbf16> {
    ^bb0(%in: tensor<4x64x256xbf16>):
      %h = loom.rms_norm %in : tensor<4x64x256xbf16>
      %a = loom.attention %h, %h, %h {heads = 4, kv_heads = 4, head_dim = 64, causal} : tensor<4x64x256xbf16>, tensor<4x64x256xbf16> -> tensor<4x64x256xbf16>
      %o = loom.linear o %a : tensor<4x64x256xbf16> -> tensor<4x64x256xbf16>
      loom.yield %o : tensor<4x64x256xbf16>
    }
    return %1 : tensor<4x64x256xbf16>
  }
}
