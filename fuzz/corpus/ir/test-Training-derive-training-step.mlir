// loom-derive-training-step on a two-block language model in miniature:
// the loss after the logits, the backward pass in reverse (the head's and
// the final norm's gradients, then one loom.layer_grad per layer holding
// its forward ops, kept, and their gradients), the residual stream's two
// cotangents summed, the token ids left without one, and one optimizer
// update per layer and one for the embedding, final norm and head.
// RUN: loom-opt %s --loom-derive-training-step | FileCheck %s
// RUN: loom-opt %s --loom-derive-training-step="optimizer=adafactor microbatches=2" | FileCheck %s --check-prefix=ADAFACTOR
// RUN: loom-opt %s --loom-derive-training-step="optimizer=sgd master-type=none state-type=bf16" | FileCheck %s --check-prefix=SGD

// CHECK-LABEL: func.func @mini
// The forward pass is unchanged.
// CHECK: %[[EMB:.*]] = loom.embed %arg0
// CHECK: %[[L0:.*]] = loom.layer 0(%[[EMB]])
// CHECK: %[[L1:.*]] = loom.layer 1(%[[L0]])
// CHECK: %[[NORM:.*]] = loom.rms_norm %[[L1]]
// CHECK: %[[LOGITS:.*]] = loom.linear lm_head %[[NORM]]
// The loss, and its cotangent.
// CHECK: %[[LOSS:.*]] = loom.loss cross_entropy %[[LOGITS]] : tensor<2x16x512xbf16> -> tensor<f32>
// CHECK: %[[DLOGITS:.*]] = loom.grad input %[[LOSS]]() {cotangents_of = array<i64>, wrt = array<i64: 0>}
// The head: the input part (dX = dY W^T), then the weight part (dW = X^T dY).
// CHECK: %[[DNORM:.*]] = loom.grad input %[[LOGITS]](%[[DLOGITS]]) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>}
// CHECK: loom.grad weight %[[LOGITS]](%[[DLOGITS]]) {cotangents_of = array<i64: 0>, wrt = array<i64>}
// CHECK: %[[DL1:.*]] = loom.grad input %[[NORM]](%[[DNORM]])
// CHECK: loom.grad weight %[[NORM]](%[[DNORM]])
// Layer 1's backward pass, then layer 0's: the forward inputs and the
// cotangents of the outputs in.
// CHECK: %[[DL0:.*]] = loom.layer_grad 1(%[[L0]], %[[DL1]]) {kind = "llama"}
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<2x16x64xbf16>, %[[DY:.*]]: tensor<2x16x64xbf16>):
// CHECK-NEXT: %[[H:.*]] = loom.rms_norm %[[X]] {loom.kept}
// CHECK-NEXT: %[[UP:.*]] = loom.linear up %[[H]] {loom.kept}
// CHECK-NEXT: %[[ACT:.*]] = loom.activation silu %[[UP]] {loom.kept}
// CHECK-NEXT: %[[DOWN:.*]] = loom.linear down %[[ACT]] {loom.kept}
// CHECK-NEXT: %[[SUM:.*]] = loom.add %[[X]], %[[DOWN]] {loom.kept}
// The residual add hands its cotangent to both branches.
// CHECK-NEXT: %[[DADD:.*]]:2 = loom.grad input %[[SUM]](%[[DY]]) {cotangents_of = array<i64: 0>, wrt = array<i64: 0, 1>}
// CHECK-NEXT: %[[DACT:.*]] = loom.grad input %[[DOWN]](%[[DADD]]#1)
// CHECK-NEXT: loom.grad weight %[[DOWN]](%[[DADD]]#1)
// CHECK-NEXT: %[[DUP:.*]] = loom.grad input %[[ACT]](%[[DACT]])
// CHECK-NEXT: %[[DH:.*]] = loom.grad input %[[UP]](%[[DUP]])
// CHECK-NEXT: loom.grad weight %[[UP]](%[[DUP]])
// CHECK-NEXT: %[[DNX:.*]] = loom.grad input %[[H]](%[[DH]])
// CHECK-NEXT: loom.grad weight %[[H]](%[[DH]])
// The layer's input had two uses: its cotangent is the sum.
// CHECK-NEXT: %[[DX:.*]] = loom.add %[[DADD]]#0, %[[DNX]]
// CHECK-NEXT: loom.yield %[[DX]]
// CHECK: %[[DEMB:.*]] = loom.layer_grad 0(%[[EMB]], %[[DL0]]) {kind = "llama"}
// The token ids get no cotangent: the embedding has only its weight part.
// CHECK: loom.grad weight %[[EMB]](%[[DEMB]]) {cotangents_of = array<i64: 0>, wrt = array<i64>}
// CHECK-NOT: loom.grad input %[[EMB]]
// Mixed-precision AdamW: two fp32 states per parameter and an fp32 master
// copy. Layer parameters: norm 64 + up 64x128 + down 128x64 = 16448.
// CHECK: loom.optimizer_update {grad_type = bf16, layer = 0 : i64, master_type = f32, optimizer = #loom<optimizer adamw>, parameters = 16448 : i64, state_elements = 32896 : i64, state_type = f32, vector_ops_per_parameter = 16 : i64, weight_type = bf16}
// CHECK: loom.optimizer_update {{{.*}}layer = 1 : i64{{.*}}parameters = 16448 : i64
// Outside the layers: embedding 512x64, final norm 64, head 64x512.
// CHECK: loom.optimizer_update {{{.*}}parameters = 65600 : i64, state_elements = 131200 : i64
// CHECK-NOT: layer =
// CHECK: return %[[LOGITS]]

// Adafactor factors the 64x128 and 128x64 matrices only when both sides
// reach 128 (optax's min_dim_size_to_factor): none here, so every state is
// a full second moment, one per parameter and no first moment.
// ADAFACTOR: loom.grad weight {{.*}} {accumulate,
// ADAFACTOR: loom.optimizer_update {{{.*}}layer = 0 : i64, master_type = f32, optimizer = #loom<optimizer adafactor>, parameters = 16448 : i64, state_elements = 16448 : i64
// ADAFACTOR-SAME: vector_ops_per_parameter = 17

// SGD with momentum: one bf16 buffer per parameter, no master copy.
// SGD-NOT: accumulate
// SGD: loom.optimizer_update {grad_type = bf16, layer = 0 : i64, optimizer = #loom<optimizer sgd>, parameters = 16448 : i64, state_elements = 16448 : i64, state_type = bf16, vector_ops_per_parameter = 4 : i64, weight_type = bf16}

module {
  func.func @mini(%ids: tensor<2x16xi32>) -> tensor<2x16x512xbf16> {
    %0 = loom.embed %ids {vocab = 512 : i64} : tensor<2x16xi32> -> tensor<2x16x64xbf16>
    %1 = loom.layer 0 (%0) {kind = "llama"} : (tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    ^bb0(%x: tensor<2x16x64xbf16>):
      %h = loom.rms_norm %x : tensor<2x16x64xbf16>
      %u = loom.linear up %h : tensor<2x16x64xbf16> -> tensor<2x16x128xbf16>
      %a = loom.activation silu %u : tensor<2x16x128xbf16>
      %d = loom.linear down %a : tensor<2x16x128xbf16> -> tensor<2x16x64xbf16>
      %s = loom.add %x, %d : tensor<2x16x64xbf16>, tensor<2x16x64xbf16>
      loom.yield %s : tensor<2x16x64xbf16>
    }
    %2 = loom.layer 1 (%1) {kind = "llama"} : (tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    ^bb0(%x: tensor<2x16x64xbf16>):
      %h = loom.rms_norm %x : tensor<2x16x64xbf16>
      %u = loom.linear up %h : tensor<2x16x64xbf16> -> tensor<2x16x128xbf16>
      %a = loom.activation silu %u : tensor<2x16x128xbf16>
      %d = loom.linear down %a : tensor<2x16x128xbf16> -> tensor<2x16x64xbf16>
      %s = loom.add %x, %d : tensor<2x16x64xbf16>, tensor<2x16x64xbf16>
      loom.yield %s : tensor<2x16x64xbf16>
    }
    %3 = loom.rms_norm %2 : tensor<2x16x64xbf16>
    %4 = loom.linear lm_head %3 : tensor<2x16x64xbf16> -> tensor<2x16x512xbf16>
    return %4 : tensor<2x16x512xbf16>
  }
}
