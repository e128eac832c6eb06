// RUN: loom-opt %s -split-input-file | loom-opt -split-input-file | FileCheck %s
// RUN: loom-opt %s -split-input-file --mlir-print-op-generic | loom-opt -split-input-file | FileCheck %s
// RUN: loom-opt %s -split-input-file --loom-model-summary 2>&1 | FileCheck %s --check-prefix=COST
// RUN: loom-opt %S/Inputs/attention-window-errors.mlir -split-input-file -verify-diagnostics

// A sliding-window attention (Mistral, Gemma 2/3's local layers) round
// trips, and its costs visit and keep at most the window.

// CHECK-LABEL: func.func @local
// CHECK: loom.attention %{{.*}} {causal, head_dim = 16 : i64, heads = 4 : i64, kv_heads = 2 : i64, window = 4 : i64}
// CHECK-LABEL: func.func @local_decode
// CHECK: loom.attention %{{.*}} {cached = 100 : i64, causal, head_dim = 16 : i64, heads = 4 : i64, kv_heads = 2 : i64, window = 4 : i64}
module {
  func.func @local(%q: tensor<1x8x64xbf16>, %k: tensor<1x8x32xbf16>) -> tensor<1x8x64xbf16> {
    %0 = loom.attention %q, %k, %k {heads = 4, kv_heads = 2, head_dim = 16, causal, window = 4} : tensor<1x8x64xbf16>, tensor<1x8x32xbf16> -> tensor<1x8x64xbf16>
    return %0 : tensor<1x8x64xbf16>
  }
}
// 8 queries, window 4: 1 + 2 + 3 + 4 * 5 = 26 pairs (36 without the window);
// 4 * 4 heads * 16 * 26 = 6656 FLOPs. The cache keeps 4 of the 8 tokens:
// 2 * 4 * 32 * 2 B = 512 B.
// COST: total {{.*}} 6.66 k {{.*}} 512 B

