// RUN: loom-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// Ulysses' all-to-all (loom-shard-sequence): `dim` shrinks by the group,
// `concat_dim` grows by it. Round-trips:
// CHECK-LABEL: func.func @to_heads
// CHECK: loom.all_to_all %{{.*}} {concat_dim = 1 : i64, dim = 2 : i64, group = "sp", group_size = 4 : i64} : tensor<2x16x256xbf16> -> tensor<2x64x64xbf16>
func.func @to_heads(%x: tensor<2x16x256xbf16>) -> tensor<2x64x64xbf16> {
  %0 = loom.all_to_all %x {group = "sp", group_size = 4, dim = 2, concat_dim = 1} : tensor<2x16x256xbf16> -> tensor<2x64x64xbf16>
  return %0 : tensor<2x64x64xbf16>
}

// -----

func.func @wrong_shape(%x: tensor<2x16x256xbf16>) {
  // expected-error @+1 {{'loom.all_to_all' op expects a result of shape [2, 64, 64], got [2, 16, 256]}}
  %0 = loom.all_to_all %x {group = "sp", group_size = 4, dim = 2, concat_dim = 1} : tensor<2x16x256xbf16> -> tensor<2x16x256xbf16>
  return
}

// -----

func.func @same_dim(%x: tensor<2x16x256xbf16>) {
  // expected-error @+1 {{'loom.all_to_all' op concat_dim 2 must be another dimension of the rank-3 operand than dim 2}}
  %0 = loom.all_to_all %x {group = "sp", group_size = 4, dim = 2, concat_dim = 2} : tensor<2x16x256xbf16> -> tensor<2x16x256xbf16>
  return
}

// -----

func.func @indivisible(%x: tensor<2x16x6xbf16>) {
  // expected-error @+1 {{'loom.all_to_all' op dimension 2 of size 6 is not divisible by group_size 4}}
  %0 = loom.all_to_all %x {group = "sp", group_size = 4, dim = 2, concat_dim = 1} : tensor<2x16x6xbf16> -> tensor<2x64x1xbf16>
  return
}
