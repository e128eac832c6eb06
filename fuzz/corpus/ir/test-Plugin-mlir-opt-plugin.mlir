// Upstream mlir-opt runs Loom's passes once it loads Loom's plugin.
// RUN: %mlir_opt --load-dialect-plugin=%loom_plugin --load-pass-plugin=%loom_plugin %s --pass-pipeline="builtin.module(loom-shard-heads{tp=4})" | FileCheck %s
// RUN: %mlir_opt --load-dialect-plugin=%loom_plugin --load-pass-plugin=%loom_plugin %s --pass-pipeline="builtin.module(loom-model-summary)" -o /dev/null | FileCheck %s --check-prefix=SUMMARY

// CHECK: loom.linear q {{.*}} {loom.split = #loom.split<column, 4>} : tensor<1x8x8192xbf16> -> tensor<1x8x2048xbf16>
// CHECK: loom.attention {{.*}}heads = 16 : i64
// CHECK: loom.all_reduce
// SUMMARY: parameters:       268435456
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @m(%x: tensor<1x8x8192xbf16>) -> tensor<1x8x8192xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x8x8192xbf16>) -> tensor<1x8x8192xbf16> {
    ^bb0(%in: tensor<1x8x8192xbf16>):
      %q = loom.linear q %in : tensor<1x8x8192xbf16> -> tensor<1x8x8192xbf16>
      %k = loom.linear k %in : tensor<1x8x8192xbf16> -> tensor<1x8x8192xbf16>
      %v = loom.linear v %in : tensor<1x8x8192xbf16> -> tensor<1x8x8192xbf16>
      %a = loom.attention %q, %k, %v {heads = 64, kv_heads = 64, head_dim = 128, causal} : tensor<1x8x8192xbf16>, tensor<1x8x8192xbf16> -> tensor<1x8x8192xbf16>
      %o = loom.linear o %a : tensor<1x8x8192xbf16> -> tensor<1x8x8192xbf16>
      loom.yield %o : tensor<1x8x8192xbf16>
    }
    return %y : tensor<1x8x8192xbf16>
  }
}
