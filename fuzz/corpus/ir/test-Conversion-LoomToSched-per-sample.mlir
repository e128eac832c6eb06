// Layers over per-sample vectors (no sequence dimension) pipeline as one
// slice and lower too (split-tokens.mlir pins the slice on its own).
// RUN: loom-opt %s --loom-partition-layers=stages=2 --loom-split-tokens --loom-check-memory | FileCheck %s
// RUN: loom-opt %s --loom-shard-heads=tp=2 --loom-partition-layers=stages=2 --loom-split-tokens --convert-loom-to-sched | FileCheck %s --check-prefix=SCHED
// CHECK: loom.pipeline = #loom.pipeline<stages = 2, slices = [1]>
// 4 rows x 64 x 32 (a column split of 64 over 2), each dimension padded to
// the MXU's 128: 2 x 4 x 128 x 128 = 131072 FLOPs; each chip's half of the
// output, 4 x 32 bf16 = 256 bytes, goes to its rank of the next stage.
// SCHED: sched.compute "layer0.linear.up" {{.*}}flops = 131072
// SCHED: sched.send to {{[0-9]+}} deps({{.*}}) {bytes = 256 : i64
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @m(%x: tensor<4x64xbf16>) -> tensor<4x64xbf16> {
    %a = loom.layer 0 (%x) : (tensor<4x64xbf16>) -> tensor<4x64xbf16> {
    ^bb0(%in: tensor<4x64xbf16>):
      %h = loom.linear up %in : tensor<4x64xbf16> -> tensor<4x64xbf16>
      loom.yield %h : tensor<4x64xbf16>
    }
    %b = loom.layer 1 (%a) : (tensor<4x64xbf16>) -> tensor<4x64xbf16> {
    ^bb0(%in: tensor<4x64xbf16>):
      %h = loom.linear down %in : tensor<4x64xbf16> -> tensor<4x64xbf16>
      loom.yield %h : tensor<4x64xbf16>
    }
    return %b : tensor<4x64xbf16>
  }
}
