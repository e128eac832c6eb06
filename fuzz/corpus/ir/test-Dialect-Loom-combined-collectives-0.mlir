// Combined collectives (several tensors' collectives issued as one, XLA's
// collective combiners): they round-trip, and each operand must meet its
// result by the single collective's rule.
// RUN: loom-opt %s -split-input-file -verify-diagnostics | loom-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @ok
// CHECK: loom.combined_reduce_scatter %{{.*}}, %{{.*}} {dim = 2 : i64, group = "tp_x", group_size = 2 : i64} : (tensor<1x8x64xbf16>, tensor<1x8x32xbf16>) -> (tensor<1x8x32xbf16>, tensor<1x8x16xbf16>)
// CHECK: loom.combined_all_reduce %{{.*}}, %{{.*}} {group = "tp_x", group_size = 2 : i64} : (tensor<1x8x64xbf16>, tensor<1x8x32xbf16>) -> (tensor<1x8x64xbf16>, tensor<1x8x32xbf16>)
// CHECK: loom.combined_all_gather %{{.*}}, %{{.*}} {dim = 1 : i64, group = "sp", group_size = 4 : i64} : (tensor<1x8x64xbf16>, tensor<1x8x32xbf16>) -> (tensor<1x32x64xbf16>, tensor<1x32x32xbf16>)
// CHECK: loom.combined_all_to_all %{{.*}}, %{{.*}} {concat_dim = 1 : i64, dim = 2 : i64, group = "sp", group_size = 2 : i64} : (tensor<1x8x64xbf16>, tensor<1x8x32xbf16>) -> (tensor<1x16x32xbf16>, tensor<1x16x16xbf16>)
func.func @ok(%a: tensor<1x8x64xbf16>, %b: tensor<1x8x32xbf16>) {
  %s:2 = loom.combined_reduce_scatter %a, %b {dim = 2, group = "tp_x", group_size = 2} : (tensor<1x8x64xbf16>, tensor<1x8x32xbf16>) -> (tensor<1x8x32xbf16>, tensor<1x8x16xbf16>)
  %r:2 = loom.combined_all_reduce %a, %b {group = "tp_x", group_size = 2} : (tensor<1x8x64xbf16>, tensor<1x8x32xbf16>) -> (tensor<1x8x64xbf16>, tensor<1x8x32xbf16>)
  %g:2 = loom.combined_all_gather %a, %b {dim = 1, group = "sp", group_size = 4} : (tensor<1x8x64xbf16>, tensor<1x8x32xbf16>) -> (tensor<1x32x64xbf16>, tensor<1x32x32xbf16>)
  %x:2 = loom.combined_all_to_all %a, %b {dim = 2, concat_dim = 1, group = "sp", group_size = 2} : (tensor<1x8x64xbf16>, tensor<1x8x32xbf16>) -> (tensor<1x16x32xbf16>, tensor<1x16x16xbf16>)
  return
}

