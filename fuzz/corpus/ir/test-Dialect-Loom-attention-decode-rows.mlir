// RUN: loom-opt %s | loom-opt | FileCheck %s
// RUN: loom-opt %s --mlir-print-op-generic | loom-opt | FileCheck %s
// RUN: loom-opt %S/Inputs/attention-decode-rows-errors.mlir -split-input-file -verify-diagnostics

// An einsum attention whose runtime runs a decode query as two rows
// (jetstream-pytorch; loom-import --attention jetstream-pytorch) round trips.

// CHECK-LABEL: func.func @decode
// CHECK: loom.attention %{{.*}} {cached = 100 : i64, causal, decode_query_rows = 2 : i64, head_dim = 16 : i64, heads = 4 : i64, kv_heads = 4 : i64, materialized_scores}
module {
  func.func @decode(%q: tensor<2x1x64xbf16>) -> tensor<2x1x64xbf16> {
    %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16, causal, cached = 100, materialized_scores, decode_query_rows = 2} : tensor<2x1x64xbf16>, tensor<2x1x64xbf16> -> tensor<2x1x64xbf16>
    return %0 : tensor<2x1x64xbf16>
  }
  // CHECK-LABEL: func.func @int8_scales
  // CHECK: loom.attention %{{.*}} {cached = 100 : i64, causal, decode_query_rows = 2 : i64, head_dim = 16 : i64, heads = 4 : i64, kv_heads = 4 : i64, kv_scales_across_heads, kv_type = i8, materialized_scores}
  func.func @int8_scales(%q: tensor<2x1x64xbf16>) -> tensor<2x1x64xbf16> {
    %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16, causal, cached = 100, kv_type = i8, materialized_scores, decode_query_rows = 2, kv_scales_across_heads} : tensor<2x1x64xbf16>, tensor<2x1x64xbf16> -> tensor<2x1x64xbf16>
    return %0 : tensor<2x1x64xbf16>
  }
}
