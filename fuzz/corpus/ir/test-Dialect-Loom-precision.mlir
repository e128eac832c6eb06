// RUN: loom-opt %s | loom-opt | FileCheck %s
// RUN: loom-opt %s --mlir-print-op-generic | loom-opt | FileCheck %s
// RUN: loom-opt %s --loom-model-summary 2>&1 | FileCheck %s --check-prefix=COST
// RUN: loom-opt %S/Inputs/precision-errors.mlir -split-input-file -verify-diagnostics

// Element types the user chose travel on the ops: int8 weights and an
// int8 x int8 matmul on loom.linear, an int8 KV cache on loom.attention.

// CHECK-LABEL: func.func @int8
// CHECK: loom.linear q %{{.*}} {compute_type = i8, weight_type = i8} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
// CHECK: loom.linear k %{{.*}} {weight_type = i8} : tensor<1x8x64xbf16> -> tensor<1x8x32xbf16>
// CHECK: loom.attention %{{.*}} {cached = 100 : i64, causal, head_dim = 16 : i64, heads = 4 : i64, kv_heads = 2 : i64, kv_type = i8}
func.func @int8(%x: tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
  %q = loom.linear q %x {weight_type = i8, compute_type = i8} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  %k = loom.linear k %x {weight_type = i8} : tensor<1x8x64xbf16> -> tensor<1x8x32xbf16>
  %a = loom.attention %q, %k, %k {heads = 4, kv_heads = 2, head_dim = 16, causal, cached = 100, kv_type = i8} : tensor<1x8x64xbf16>, tensor<1x8x32xbf16> -> tensor<1x8x64xbf16>
  return %a : tensor<1x8x64xbf16>
}
// Parameters: 64*64 + 64*32 = 6144, one byte each. Bytes read: q and k
// read their input (1 KiB each) and 4096 and 2048 weight bytes; attention
// reads q, k, v (1 KiB + 512 + 512 B) and 100 cached tokens of K and V at
// one byte: 2 * 100 * 32 = 6400; 5120 + 3072 + 8448 = 16640. KV cache: 108
// tokens, 2 * 108 * 32 B = 6912.
// COST: total {{ *}}6.14 k {{.*}} 16.64 kB {{.*}} 6.91 kB
