// loom-split-tokens on hand-written pipelined models: the slice lengths it
// chooses for causal models (TeraPipe) and the patch count for diffusion
// models (PipeFusion), worked by hand.
// RUN: loom-opt %s -split-input-file --loom-split-tokens | FileCheck %s
// RUN: loom-opt %S/Inputs/causal-2-stages.mlir --loom-split-tokens=report=true 2>&1 | FileCheck %s --check-prefix=CAUSAL
// RUN: loom-opt %S/Inputs/dit-2-stages.mlir --loom-split-tokens=report=true 2>&1 | FileCheck %s --check-prefix=DIT
// RUN: loom-opt %S/Inputs/dit-2-stages.mlir "--loom-split-tokens=report=true warmup-steps=0" 2>&1 | FileCheck %s --check-prefix=DIT0
// Asked-for slices are taken as given; a granularity restricts the search.
// RUN: loom-opt %S/Inputs/causal-2-stages.mlir --loom-split-tokens=slices=4 | FileCheck %s --check-prefix=COUNT
// RUN: loom-opt %S/Inputs/causal-2-stages.mlir --loom-split-tokens=slices=100,80,76 | FileCheck %s --check-prefix=LIST
// RUN: loom-opt %S/Inputs/causal-2-stages.mlir --loom-split-tokens=granularity=32 | FileCheck %s --check-prefix=GRAN32
// RUN: loom-opt %S/Inputs/causal-2-stages.mlir --loom-split-tokens=granularity=64 | FileCheck %s --check-prefix=GRAN64
// RUN: loom-opt %S/Inputs/dit-2-stages.mlir --loom-split-tokens=slices=4 | FileCheck %s --check-prefix=DITCOUNT
// RUN: loom-opt %S/Inputs/dit-2-stages.mlir "--loom-split-tokens=slices=2 warmup-steps=4" | FileCheck %s --check-prefix=DITWARM
// The toy layers here are priced with v5e's nominal figures (calibration =
// "nominal"): they test the algorithm, whose hand-worked answers the
// calibration's fixed costs per kernel would swamp at these sizes.
// COUNT: loom.pipeline = #loom.pipeline<stages = 2, slices = [64, 64, 64, 64]>
// LIST: loom.pipeline = #loom.pipeline<stages = 2, slices = [100, 80, 76]>
// In multiples of 32, and of 64, the best is still one slice: the 256
// tokens are one block of the attention kernel (the CAUSAL table below).
// GRAN32: loom.pipeline = #loom.pipeline<stages = 2, slices = [256]>
// GRAN64: loom.pipeline = #loom.pipeline<stages = 2, slices = [256]>
// DITCOUNT: loom.pipeline = #loom.pipeline<stages = 2, slices = [16, 16, 16, 16], patches, steps = 4, warmup = 1>
// DITWARM: loom.pipeline = #loom.pipeline<stages = 2, slices = [32, 32], patches, steps = 4, warmup = 4>

// Times from the v5e figures (targets/tpu-v5e.json): HBM at 819.2e9 x 0.9 =
// 737.28e9 B/s, compute at 197e12 x 0.9568 = 188.49e12 FLOP/s, each op the
// slower of the two. TeraPipe's pipeline time for slices l_1..l_M on K
// stages is T = sum t_i + (K - 1) max t_i, t_i the slowest stage's time
// for slice i after the slices before it (loom/Partition/SplitTokens.h).

// No attention: a slice of l tokens through a 128 x 128 linear reads the
// W = 32768 B of weights again plus 512 B per token (in and out), HBM-bound:
// t(l) = (W + 512 l) / 737.28e9 on each stage. All 256 tokens move
// 131072 B = 4 W, so with M slices of at most l_max tokens
//   T = (M W + 4 W) + (K - 1) (W + 512 l_max),
// in units of W: M + 4 + (K - 1)(1 + 4 / M) for equal slices. On 2 stages
// M = 1, 2, 4 give 10, 9, 10 (3 slices, at best 88 + 88 + 80, give 9.375):
// two slices of 128.
// CHECK-LABEL: func.func @linear_two_stages
// CHECK-SAME: loom.pipeline = #loom.pipeline<stages = 2, slices = [128, 128]>
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  func.func @linear_two_stages(%x: tensor<1x256x128xbf16>) -> tensor<1x256x128xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [256]>} {
    %0 = loom.layer 0 (%x) {stage = 0} : (tensor<1x256x128xbf16>) -> tensor<1x256x128xbf16> {
    ^bb0(%in: tensor<1x256x128xbf16>):
      %o = loom.linear o %in : tensor<1x256x128xbf16> -> tensor<1x256x128xbf16>
      loom.yield %o : tensor<1x256x128xbf16>
    }
    %1 = loom.layer 1 (%0) {stage = 1} : (tensor<1x256x128xbf16>) -> tensor<1x256x128xbf16> {
    ^bb0(%in: tensor<1x256x128xbf16>):
      %o = loom.linear o %in : tensor<1x256x128xbf16> -> tensor<1x256x128xbf16>
      loom.yield %o : tensor<1x256x128xbf16>
    }
    return %1 : tensor<1x256x128xbf16>
  }
}

