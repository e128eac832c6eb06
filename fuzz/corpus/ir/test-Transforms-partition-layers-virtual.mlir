// loom-partition-layers with virtual stages (interleaved; Narayanan et al.,
// SC'21): four equal layers on 2 stages of 2 chunks each take one layer a
// chunk, chunk c on stage c mod 2, so stage 0 holds layers 0 and 2 and
// stage 1 layers 1 and 3; each stage is priced as the sum of its chunks.
// RUN: loom-opt %s -split-input-file -verify-diagnostics --loom-partition-layers="stages=2 virtual-stages=2 remarks=true" | FileCheck %s
// RUN: not loom-opt %s -split-input-file --loom-partition-layers="stages=2 virtual-stages=4" 2>&1 | FileCheck %s --check-prefix=MANY
// RUN: not loom-opt %s -split-input-file --loom-partition-layers="stages=1 virtual-stages=2" 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: not loom-opt %s -split-input-file --loom-partition-layers="stages=2 virtual-stages=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// (Priced with v5e's nominal figures, as partition-layers.mlir.)

// CHECK-LABEL: func.func @four
// CHECK-SAME: loom.pipeline = #loom.pipeline<stages = 2, slices = [64], virtual_stages = 2>
// CHECK: loom.layer 0({{.*}}) {stage = 0 : i64}
// CHECK: loom.layer 1({{.*}}) {stage = 1 : i64}
// CHECK: loom.layer 2({{.*}}) {stage = 2 : i64}
// CHECK: loom.layer 3({{.*}}) {stage = 3 : i64}
// MANY: error: 2 stages x 4 virtual stages need at least 8 layers; the model has 4 (virtual stages that fit: 1, 2)
// ONE: error: virtual-stages 2 interleaves chunks of layers over several stages; give stages >= 2
// ZERO: error: virtual-stages must be at least 1, got 0
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  // expected-remark-re @+1 {{2 stages on v5e-4; slowest stage {{.*}} ms; chunk 0 on stage 0: layers 0-0, {{.*}}; chunk 1 on stage 1: layers 1-1, {{.*}}; chunk 2 on stage 0: layers 2-2, {{.*}}; chunk 3 on stage 1: layers 3-3, {{.*}}; stage 0: {{.*}} ms, {{.*}}; stage 1: {{.*}}}}
  func.func @four(%x: tensor<1x64x256xbf16>) -> tensor<1x64x256xbf16> {
    %0 = loom.layer 0 (%x) : (tensor<1x64x256xbf16>) -> tensor<1x64x256xbf16> {
    ^bb0(%in: tensor<1x64x256xbf16>):
      %o = loom.linear o %in : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      loom.yield %o : tensor<1x64x256xbf16>
    }
    %1 = loom.layer 1 (%0) : (tensor<1x64x256xbf16>) -> tensor<1x64x256xbf16> {
    ^bb0(%in: tensor<1x64x256xbf16>):
      %o = loom.linear o %in : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      loom.yield %o : tensor<1x64x256xbf16>
    }
    %2 = loom.layer 2 (%1) : (tensor<1x64x256xbf16>) -> tensor<1x64x256xbf16> {
    ^bb0(%in: tensor<1x64x256xbf16>):
      %o = loom.linear o %in : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      loom.yield %o : tensor<1x64x256xbf16>
    }
    %3 = loom.layer 3 (%2) : (tensor<1x64x256xbf16>) -> tensor<1x64x256xbf16> {
    ^bb0(%in: tensor<1x64x256xbf16>):
      %o = loom.linear o %in : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      loom.yield %o : tensor<1x64x256xbf16>
    }
    return %3 : tensor<1x64x256xbf16>
  }
}
