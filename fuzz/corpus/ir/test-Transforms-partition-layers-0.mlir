// loom-partition-layers on hand-written models: which stage each layer
// lands on, and why.
// RUN: loom-opt %s -split-input-file -verify-diagnostics --loom-partition-layers="stages=2 remarks=true" | FileCheck %s
// The data-parallel degree goes on the module's layout; the stages do not
// change.
// RUN: loom-opt %s -split-input-file --loom-partition-layers="stages=2 data-parallel=2" | FileCheck %s --check-prefix=DP
// The toy layers here are priced with v5e's nominal figures (calibration =
// "nominal"): they test the algorithm, whose hand-worked answers the
// calibration's fixed costs per kernel would swamp at these sizes.
// DP-COUNT-4: loom.parallel = #loom.parallel<dp = 2>,
// DP-NOT: loom.parallel

// Times worked by hand from the v5e figures (targets/tpu-v5e.json): HBM at
// 819.2e9 x 0.9 = 737.28e9 B/s, compute at 197e12 x 0.8 = 157.6e12 FLOP/s;
// each op takes the slower of the two. Over 64 tokens of hidden 256 (bf16)
// every linear here is HBM-bound:
//   o 256 -> 256:    32768 in + 131072 weights + 32768 out = 196608 B
//                    -> 0.2667 us (1 unit); its 8.39 MFLOP take 0.053 us
//   up 256 -> 1024:  32768 + 524288 + 131072 = 688128 B -> 3.5 units
//   down 1024 -> 256: the same, 3.5 units
// A stage's memory is its layers' weights plus the largest layer's
// intermediate results (the activations in flight).

// A heavy first layer (7 units) and three light ones (1 unit each): the
// cuts are 7 | 3, 8 | 2 and 9 | 1 units, so the slowest stage is least
// when layer 0 stands alone, not at the even 2 + 2 cut (8 | 2).
// Stage 0: 2 x 524288 B of weights + 163840 B (the heavy layer's 131072 +
// 32768 B of results) = 1.21 MB; stage 1: 3 x 131072 + 163840 = 557.06 kB.
// CHECK-LABEL: func.func @heavy_first
// CHECK-SAME: attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [64]>}
// CHECK: loom.layer 0({{.*}}) {stage = 0 : i64}
// CHECK: loom.layer 1({{.*}}) {stage = 1 : i64}
// CHECK: loom.layer 2({{.*}}) {stage = 1 : i64}
// CHECK: loom.layer 3({{.*}}) {stage = 1 : i64}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  // expected-remark @+1 {{2 stages on v5e-4; slowest stage 0.002 ms; stage 0: layers 0-0, 0.002 ms, 1.21 MB; stage 1: layers 1-3, 0.001 ms, 557.06 kB}}
  func.func @heavy_first(%x: tensor<1x64x256xbf16>) -> tensor<1x64x256xbf16> {
    %0 = loom.layer 0 (%x) : (tensor<1x64x256xbf16>) -> tensor<1x64x256xbf16> {
    ^bb0(%in: tensor<1x64x256xbf16>):
      %h = loom.linear up %in : tensor<1x64x256xbf16> -> tensor<1x64x1024xbf16>
      %o = loom.linear down %h : tensor<1x64x1024xbf16> -> tensor<1x64x256xbf16>
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

