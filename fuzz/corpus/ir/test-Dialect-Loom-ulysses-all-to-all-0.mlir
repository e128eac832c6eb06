// RUN: loom-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// Ulysses' all-to-all (loom-shard-sequence): `dim` shrinks by the group,
// `concat_dim` grows by it. Round-trips:
// CHECK-LABEL: func.func @to_heads
// CHECK: loom.all_to_all %{{.*}} {concat_dim = 1 : i64, dim = 2 : i64, group = "sp", group_size = 4 : i64} : tensor<2x16x256xbf16> -> tensor<2x64x64xbf16>
func.func @to_heads(%x: tensor<2x16x256xbf16>) -> tensor<2x64x64xbf16> {
  %0 = loom.all_to_all %x {group = "sp", group_size = 4, dim = 2, concat_dim = 1} : tensor<2x16x256xbf16> -> tensor<2x64x64xbf16>
  return %0 : tensor<2x64x64xbf16>
}

