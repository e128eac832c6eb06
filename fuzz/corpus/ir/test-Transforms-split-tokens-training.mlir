// TeraPipe's slicing of a training step (docs/training.md, "Token
// slices"): loom-split-tokens prices each slice's forward and backward
// passes on the slowest chunk, a later slice costing more both ways (its
// queries visit more keys; its backward pass makes their gradients), so
// the DP gives the first slice the most tokens. The forward pass alone
// (before loom-derive-training-step) slices by forward time.
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-derive-training-step=microbatches=2 --loom-partition-layers=stages=2 --loom-split-tokens="microbatches=2 schedule=1f1b report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRAIN
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-partition-layers=stages=2 --loom-split-tokens="microbatches=2 schedule=1f1b report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FORWARD
// TRAIN: remark: TeraPipe: 3 slices [1024, 512, 512] on 2 stages for each of 2 microbatches (forward and backward), predicted {{.*}}; best equal slicing: 4 x 512 tokens, {{.*}}; {{[1-9][0-9.]*}}% better
// FORWARD: remark: TeraPipe: {{[0-9]+}} slices [{{.*}}] on 2 stages for each of 2 microbatches, predicted
// FORWARD-NOT: forward and backward

// The training step's slices are lowered and simulated.
// RUN: loom-opt %s --loom-set-target=topology=v5e-4 --loom-derive-training-step=microbatches=2 --loom-partition-layers=stages=2 --loom-split-tokens="microbatches=2 schedule=1f1b" --convert-loom-to-sched | loom-translate --sched-to-json | loom-sim - | FileCheck %s --check-prefix=SIM
// SIM: makespan: {{.*}} (2 chips

module {
  func.func @block(%x: tensor<2x2048x1024xbf16>) -> tensor<2x2048x1024xbf16> {
    %0 = loom.layer 0 (%x) : (tensor<2x2048x1024xbf16>) -> tensor<2x2048x1024xbf16> {
    ^bb0(%in: tensor<2x2048x1024xbf16>):
      %h = loom.rms_norm %in : tensor<2x2048x1024xbf16>
      %a = loom.attention %h, %h, %h {heads = 8, kv_heads = 8, head_dim = 128, causal} : tensor<2x2048x1024xbf16>, tensor<2x2048x1024xbf16> -> tensor<2x2048x1024xbf16>
      %o = loom.linear o %a : tensor<2x2048x1024xbf16> -> tensor<2x2048x1024xbf16>
      loom.yield %o : tensor<2x2048x1024xbf16>
    }
    %1 = loom.layer 1 (%0) : (tensor<2x2048x1024xbf16>) -> tensor<2x2048x1024xbf16> {
    ^bb0(%in: tensor<2x2048x1024xbf16>):
      %h = loom.rms_norm %in : tensor<2x2048x1024xbf16>
      %a = loom.attention %h, %h, %h {heads = 8, kv_heads = 8, head_dim = 128, causal} : tensor<2x2048x1024xbf16>, tensor<2x2048x1024xbf16> -> tensor<2x2048x1024xbf16>
      %o = loom.linear o %a : tensor<2x2048x1024xbf16> -> tensor<2x2048x1024xbf16>
      loom.yield %o : tensor<2x2048x1024xbf16>
    }
    return %1 : tensor<2x2048x1024xbf16>
  }
}
