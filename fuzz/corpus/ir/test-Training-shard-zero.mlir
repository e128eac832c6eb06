// loom-shard-zero records how the data-parallel replicas split the model
// states on #loom.parallel: by default all of them (fsdp = dp) at stage 3
// (FSDP); a group of fsdp replicas (hybrid sharding) at a stage given.
// RUN: loom-opt %s --loom-set-target=topology=v5e-8 --loom-partition-layers=data-parallel=8 --loom-derive-training-step --loom-shard-zero | FileCheck %s
// RUN: loom-opt %s --loom-set-target=topology=v5e-8 --loom-partition-layers=data-parallel=8 --loom-derive-training-step --loom-shard-zero="fsdp=4 stage=1" | FileCheck %s --check-prefix=HYBRID
// The split is counted by loom-check-memory, item by item. Each layer has
// 2 x 64 x 128 + 64 = 16448 parameters, two layers 32896; over 8 chips at
// ZeRO-3: weights and gradients 32896 x 2 / 8 = 8224 B each, the master
// copy and Adam's m and v 32896 x 12 / 8 = 49344 B. Kept per layer: its
// input, the norm's output (4096 B each), up's output and the activation's
// (8192 B each) = 24576 B; two layers and the logits the loss's gradient
// reads (4096 B): 53248 B. Buffers, at the step's peak (layer 1's backward
// pass, at the norm's gradient, every activation still kept): the norm's
// scale gathered (64 x 2 B) and layer 0's down projection prefetched (64 x
// 128 x 2 B), and the gradients of layer 1's up and down projections in
// their buckets (2 x 16384 B) = 49280 B.
// RUN: loom-opt %s --loom-set-target=topology=v5e-8 --loom-partition-layers=data-parallel=8 --loom-derive-training-step --loom-shard-zero --loom-check-memory=remarks=true 2>&1 | FileCheck %s --check-prefix=MEMORY

// CHECK: loom.parallel = #loom.parallel<dp = 8, fsdp = 8, zero = 3>
// HYBRID: loom.parallel = #loom.parallel<dp = 8, fsdp = 4, zero = 1>
// MEMORY: remark: the training step: 168.32 kB of 16.00 GB per chip (0%): activations kept for the backward pass 53.25 kB, optimizer state and master weights 49.34 kB, collective buffers 49.28 kB, weights 8.22 kB, gradients 8.22 kB

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
