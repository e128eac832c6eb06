// loom-remat's policies on one layer's backward pass: none keeps every
// forward result the gradients read; selective as none, with the
// attention's scores recomputed; full recomputes every forward op, keeping
// only the layer's input.
// RUN: loom-opt %s --loom-derive-training-step --loom-remat=policy=none | FileCheck %s --check-prefix=NONE
// RUN: loom-opt %s --loom-derive-training-step --loom-remat=policy=selective | FileCheck %s --check-prefix=SELECTIVE
// RUN: loom-opt %s --loom-derive-training-step --loom-remat=policy=full | FileCheck %s --check-prefix=FULL
// MaxText's named policies keep only the outputs they name: minimal every
// projection's, save_dot_with_context_except_mlp also the attention's
// output, save_qkv_proj only q, k and v's (none here).
// RUN: loom-opt %s --loom-derive-training-step --loom-remat=policy=minimal | FileCheck %s --check-prefix=MINIMAL
// RUN: loom-opt %s --loom-derive-training-step --loom-remat=policy=save_dot_with_context_except_mlp | FileCheck %s --check-prefix=CONTEXT
// RUN: loom-opt %s --loom-derive-training-step --loom-remat=policy=save_qkv_proj | FileCheck %s --check-prefix=QKV
// The offloaded policies keep their names' outputs in host memory
// (loom.kept and loom.offloaded), recomputing the rest: minimal_offloaded
// the out projection's here; qkv_proj_offloaded none (no q, k, v here).
// RUN: loom-opt %s --loom-derive-training-step --loom-remat=policy=minimal_offloaded | FileCheck %s --check-prefix=MINOFF
// RUN: loom-opt %s --loom-derive-training-step --loom-remat=policy=qkv_proj_offloaded | FileCheck %s --check-prefix=QKVOFF
// Choosing again replaces the marks: no op stays offloaded under none.
// RUN: loom-opt %s --loom-derive-training-step --loom-remat=policy=minimal_offloaded --loom-remat=policy=none | FileCheck %s --check-prefix=AGAIN
// RUN: not loom-opt %s --loom-derive-training-step --loom-remat=policy=some 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not loom-opt %s --loom-remat 2>&1 | FileCheck %s --check-prefix=FORWARD

// NONE: loom.layer_grad 0
// NONE: loom.rms_norm {{.*}} {loom.kept}
// NONE: loom.attention {{.*}}loom.kept{{.*}}materialized_scores
// NONE-NOT: recompute_scores
// NONE: loom.linear o {{.*}} {loom.kept}

// SELECTIVE: loom.layer_grad 0
// SELECTIVE: loom.rms_norm {{.*}} {loom.kept}
// SELECTIVE: loom.attention {{.*}}loom.kept{{.*}}recompute_scores
// SELECTIVE: loom.linear o {{.*}} {loom.kept}

// FULL: loom.layer_grad 0
// FULL: loom.rms_norm {{.*}} {loom.recompute}
// FULL: loom.attention {{.*}}loom.recompute
// FULL: loom.linear o {{.*}} {loom.recompute}
// FULL-NOT: loom.kept

// MINIMAL: loom.layer_grad 0
// MINIMAL: loom.rms_norm {{.*}} {loom.recompute}
// MINIMAL: loom.attention {{.*}}loom.recompute
// MINIMAL-NOT: recompute_scores
// MINIMAL: loom.linear o {{.*}} {loom.kept}

// CONTEXT: loom.layer_grad 0
// CONTEXT: loom.rms_norm {{.*}} {loom.recompute}
// CONTEXT: loom.attention {{.*}}loom.kept
// CONTEXT: loom.linear o {{.*}} {loom.kept}

// QKV: loom.layer_grad 0
// QKV: loom.rms_norm {{.*}} {loom.recompute}
// QKV: loom.attention {{.*}}loom.recompute
// QKV: loom.linear o {{.*}} {loom.recompute}
// QKV-NOT: loom.kept

// MINOFF: loom.layer_grad 0
// MINOFF: loom.rms_norm {{.*}} {loom.recompute}
// MINOFF: loom.attention {{.*}}loom.recompute
// MINOFF: loom.linear o {{.*}} {loom.kept, loom.offloaded}

// QKVOFF: loom.layer_grad 0
// QKVOFF-NOT: loom.offloaded
// QKVOFF: loom.linear o {{.*}} {loom.recompute}
// QKVOFF-NOT: loom.kept

// AGAIN: loom.linear o {{.*}} {loom.kept}
// AGAIN-NOT: loom.offloaded

// UNKNOWN: error: unknown rematerialisation policy 'some' (valid: none, selective, full, minimal, save_dot_with_context_except_mlp, save_dot_except_mlpwi, save_dot_except_mlp, save_qkv_proj, qkv_proj_offloaded or minimal_offloaded)
// FORWARD: error: has no backward pass to rematerialise: run loom-derive-training-step first

func.func @block(%x: tensor<1x64x256xbf16>) -> tensor<1x64x256xbf16> {
  %0 = loom.layer 0 (%x) : (tensor<1x64x256xbf16>) -> tensor<1x64x256xbf16> {
  ^bb0(%in: tensor<1x64x256xbf16>):
    %h = loom.rms_norm %in : tensor<1x64x256xbf16>
    %a = loom.attention %h, %h, %h {heads = 4, kv_heads = 4, head_dim = 64, causal, materialized_scores} : tensor<1x64x256xbf16>, tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
    %o = loom.linear o %a : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
    loom.yield %o : tensor<1x64x256xbf16>
  }
  return %0 : tensor<1x64x256xbf16>
}
