// A training step lowered: two layers (16448 parameters each: two 64 x 128
// projections and a norm), 4 data-parallel replicas on v5e-4, one
// microbatch of 2 x 16 tokens.
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-partition-layers=data-parallel=4 --loom-derive-training-step --convert-loom-to-sched | FileCheck %s --check-prefix=DP
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-partition-layers=data-parallel=4 --loom-derive-training-step --loom-shard-zero --convert-loom-to-sched | FileCheck %s --check-prefix=FSDP
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-partition-layers=data-parallel=4 --loom-derive-training-step --loom-shard-zero="fsdp=2 stage=1" --convert-loom-to-sched | FileCheck %s --check-prefix=HYBRID

// Data parallelism: every chip holds the whole model states (16448 x 2 B of
// weights, of gradients; 16448 x 12 B of master copy and Adam's m and v),
// runs the forward pass keeping 24576 B per layer (its input and the
// norm's output, 4096 B each; up's and the activation's, 8192 B each),
// the loss, and the backward pass last layer first; each layer's gradients
// (32896 B) are all-reduced over the 4 replicas as soon as its backward
// pass ends, under the next layer's; each update waits for its layer's.
// DP: sched.chip 0 {
// DP-NEXT: sched.alloc weights 32896 "layer0.weights"
// DP-NEXT: sched.alloc gradients 32896 "layer0.gradients"
// DP-NEXT: sched.alloc optimizer_state 197376 "layer0.optimizer_state"
// DP: sched.alloc activations 24576 "layer0.kept.mb0"
// DP-NEXT: sched.compute "layer0.rms_norm"
// DP: %[[K1:[0-9]+]] = sched.alloc activations 24576 "layer1.kept.mb0"
// DP: sched.compute "epilogue.loss"
// DP-NEXT: sched.compute "epilogue.backward.grad.input.loss"
// DP-NEXT: sched.compute "layer1.backward.grad.input.linear.down"
// DP-NEXT: sched.compute "layer1.backward.grad.weight.linear.down"
// DP: %[[B1:[0-9]+]] = sched.compute "layer1.backward.add"
// DP-NEXT: sched.free %[[K1]] deps(%[[B1]])
// DP-NEXT: %[[AR1:[0-9]+]] = sched.collective_start all_reduce deps(%[[B1]]) {bytes = 32896 : i64, group = array<i64: 0, 1, 3, 2>, tag = 0 : i64}
// DP-NEXT: %[[D1:[0-9]+]] = sched.collective_done %[[AR1]]
// DP-NEXT: sched.compute "layer0.backward.grad.input.linear.down"
// DP: %[[B0:[0-9]+]] = sched.compute "layer0.backward.add"
// DP: %[[AR0:[0-9]+]] = sched.collective_start all_reduce deps(%[[B0]])
// DP-NEXT: %[[D0:[0-9]+]] = sched.collective_done %[[AR0]]
// DP: %[[U1:[0-9]+]] = sched.compute "layer1.optimizer_update" deps(%[[B0]], %[[D1]]) {bytes = 460544 : i64, flops = 0 : i64, layer = 1 : i64, op = "loom.optimizer_update", slice = 0 : i64, vector_ops = 263168 : i64}
// DP-NEXT: sched.compute "layer0.optimizer_update" deps(%[[U1]], %[[D0]]) {{.*$}}
// DP-NEXT: }

// FSDP (ZeRO-3 over the 4): a quarter of every state. Each op that reads
// weights has them all-gathered just before it into a buffer of their own
// size (the norm's scale, 64 x 2 B; up's and down's matrices, 64 x 128 x
// 2 B), freed after it. The gathers run in order, each as early as the
// buffers allow (at most the two largest reads, up's and down's: here one
// read ahead, the next op's gather starting as an op starts, once the
// buffer before it is freed). The backward pass gathers them again for
// the gradients' input parts (dX = dY W^T); each weight part fills a
// bucket of its gradients' size, reduce-scattered after it and freed when
// that is done, and the third bucket waits for the first's free. Each chip
// updates its quarter once its layer's reduce-scatters are done, and
// gathers nothing after.
// FSDP: sched.chip 0 {
// FSDP-NEXT: sched.alloc weights 8224 "layer0.weights"
// FSDP-NEXT: sched.alloc gradients 8224 "layer0.gradients"
// FSDP-NEXT: sched.alloc optimizer_state 49344 "layer0.optimizer_state"
// FSDP: sched.alloc activations 24576 "layer0.kept.mb0"
// FSDP-NEXT: %[[GN:[0-9]+]] = sched.alloc buffers 128 "layer0.rms_norm.gathered_weights"
// FSDP-NEXT: %[[SN:[0-9]+]] = sched.collective_start all_gather deps(%[[GN]]) {bytes = 128 : i64, group = array<i64: 0, 1, 3, 2>
// FSDP-NEXT: %[[DN:[0-9]+]] = sched.collective_done %[[SN]]
// FSDP-NEXT: %[[N:[0-9]+]] = sched.compute "layer0.rms_norm" deps(%[[DN]])
// FSDP-NEXT: %[[FN:[0-9]+]] = sched.free %[[GN]] deps(%[[N]])
// FSDP-NEXT: %[[GU:[0-9]+]] = sched.alloc buffers 16384 "layer0.linear.up.gathered_weights" deps(%[[DN]])
// FSDP-NEXT: %[[SU:[0-9]+]] = sched.collective_start all_gather deps(%[[GU]]) {bytes = 16384 : i64, group = array<i64: 0, 1, 3, 2>
// FSDP-NEXT: %[[DU:[0-9]+]] = sched.collective_done %[[SU]]
// FSDP-NEXT: %[[U:[0-9]+]] = sched.compute "layer0.linear.up+activation" deps(%[[N]], %[[DU]])
// FSDP-NEXT: sched.free %[[GU]] deps(%[[U]])
// FSDP-NEXT: %[[GD:[0-9]+]] = sched.alloc buffers 16384 "layer0.linear.down.gathered_weights" deps(%[[N]], %[[DU]], %[[FN]])
// FSDP-NEXT: %[[SD:[0-9]+]] = sched.collective_start all_gather deps(%[[GD]]) {bytes = 16384 : i64
// FSDP-NEXT: %[[DD:[0-9]+]] = sched.collective_done %[[SD]]
// FSDP-NEXT: sched.compute "layer0.linear.down+add" deps(%[[U]], %[[DD]])
// FSDP: %[[L:[0-9]+]] = sched.compute "epilogue.backward.grad.input.loss"
// FSDP-NEXT: %[[GB:[0-9]+]] = sched.alloc buffers 16384 "layer1.backward.grad.input.linear.down.gathered_weights"
// FSDP-NEXT: %[[SB:[0-9]+]] = sched.collective_start all_gather deps(%[[GB]]) {bytes = 16384 : i64
// FSDP-NEXT: %[[DB:[0-9]+]] = sched.collective_done %[[SB]]
// FSDP-NEXT: %[[IN:[0-9]+]] = sched.compute "layer1.backward.grad.input.linear.down" deps(%[[L]], %[[DB]])
// FSDP-NEXT: sched.free %[[GB]] deps(%[[IN]])
// FSDP-NEXT: %[[BW:[0-9]+]] = sched.alloc buffers 16384 "layer1.backward.grad.weight.linear.down.gradient_bucket" deps(%[[IN]])
// FSDP-NEXT: %[[W:[0-9]+]] = sched.compute "layer1.backward.grad.weight.linear.down" deps(%[[IN]], %[[BW]])
// FSDP-NEXT: %[[RS:[0-9]+]] = sched.collective_start reduce_scatter deps(%[[W]]) {bytes = 16384 : i64, group = array<i64: 0, 1, 3, 2>
// FSDP-NEXT: %[[RD:[0-9]+]] = sched.collective_done %[[RS]]
// FSDP-NEXT: %[[FB:[0-9]+]] = sched.free %[[BW]] deps(%[[RD]])
// FSDP: sched.alloc buffers 16384 "layer1.backward.grad.input.linear.up.gathered_weights"
// FSDP: sched.alloc buffers 16384 "layer1.backward.grad.weight.linear.up.gradient_bucket"
// FSDP: sched.alloc buffers 128 "layer1.backward.grad.input.rms_norm.gathered_weights"
// FSDP: sched.alloc buffers 128 "layer1.backward.grad.weight.rms_norm.gradient_bucket" deps(%{{[0-9]+}}, %[[FB]])
// FSDP: sched.compute "layer1.optimizer_update" deps(%{{[0-9]+}}, %[[RD]], %{{[0-9]+}}, %{{[0-9]+}}) {bytes = 115136 : i64, flops = 0 : i64, layer = 1 : i64, op = "loom.optimizer_update", slice = 0 : i64, vector_ops = 65792 : i64}
// FSDP-NEXT: sched.compute "layer0.optimizer_update" {{.*$}}
// FSDP-NEXT: }

// No buffer holds a layer's whole weights (16448 x 2 B): on the 4 chips,
// 2 layers x 3 weights x 2 passes are gathered one by one, and the 2
// layers x 3 gradients reduce-scattered one by one.
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-partition-layers=data-parallel=4 --loom-derive-training-step --loom-shard-zero --convert-loom-to-sched | FileCheck %s --check-prefix=PERWEIGHT
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-partition-layers=data-parallel=4 --loom-derive-training-step --loom-shard-zero --convert-loom-to-sched | grep -c 'gathered_weights"' | FileCheck %s --check-prefix=GATHERS
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-partition-layers=data-parallel=4 --loom-derive-training-step --loom-shard-zero --convert-loom-to-sched | grep -c 'reduce_scatter' | FileCheck %s --check-prefix=SCATTERS
// PERWEIGHT-NOT: sched.alloc buffers 32896
// GATHERS: {{^}}48{{$}}
// SCATTERS: {{^}}24{{$}}

// Hybrid (ZeRO-1 in pairs of replicas): chips 0 and 1 split the optimizer
// state; the gradients are reduce-scattered within the pair, the half
// all-reduced with the other pair's copy (replica 2, on chip 3), and the
// updated weights all-gathered within the pair.
// HYBRID: sched.chip 0 {
// HYBRID-NEXT: sched.alloc weights 32896 "layer0.weights"
// HYBRID-NEXT: sched.alloc gradients 32896 "layer0.gradients"
// HYBRID-NEXT: sched.alloc optimizer_state 98688 "layer0.optimizer_state"
// HYBRID: sched.collective_start reduce_scatter {{.*}}{bytes = 32896 : i64, group = array<i64: 0, 1>
// HYBRID: sched.collective_start all_reduce {{.*}}{bytes = 16448 : i64, group = array<i64: 0, 3>
// HYBRID: sched.compute "layer1.optimizer_update"
// HYBRID-NEXT: sched.collective_start all_gather {{.*}}{bytes = 32896 : i64, group = array<i64: 0, 1>

module {
  func.func @mini(%x: tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    %0 = loom.layer 0 (%x) {kind = "mlp"} : (tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    ^bb0(%in: tensor<2x16x64xbf16>):
      %h = loom.rms_norm %in : tensor<2x16x64xbf16>
      %u = loom.linear up %h : tensor<2x16x64xbf16> -> tensor<2x16x128xbf16>
      %a = loom.activation silu %u : tensor<2x16x128xbf16>
      %d = loom.linear down %a : tensor<2x16x128xbf16> -> tensor<2x16x64xbf16>
      %s = loom.add %in, %d : tensor<2x16x64xbf16>, tensor<2x16x64xbf16>
      loom.yield %s : tensor<2x16x64xbf16>
    }
    %1 = loom.layer 1 (%0) {kind = "mlp"} : (tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    ^bb0(%in: tensor<2x16x64xbf16>):
      %h = loom.rms_norm %in : tensor<2x16x64xbf16>
      %u = loom.linear up %h : tensor<2x16x64xbf16> -> tensor<2x16x128xbf16>
      %a = loom.activation silu %u : tensor<2x16x128xbf16>
      %d = loom.linear down %a : tensor<2x16x128xbf16> -> tensor<2x16x64xbf16>
      %s = loom.add %in, %d : tensor<2x16x64xbf16>, tensor<2x16x64xbf16>
      loom.yield %s : tensor<2x16x64xbf16>
    }
    return %1 : tensor<2x16x64xbf16>
  }
}
