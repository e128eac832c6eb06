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

// -----

// The same layers on 4 stages: M + 4 + 3 (1 + 4 / M) is 14 at M = 4, 14.125
// at M = 3 (88, 88, 80) and 14.625 at M = 5 (at best 56, 56, 48, 48, 48):
// more stages, more slices to fill them.
// CHECK-LABEL: func.func @linear_four_stages
// CHECK-SAME: loom.pipeline = #loom.pipeline<stages = 4, slices = [64, 64, 64, 64]>
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  func.func @linear_four_stages(%x: tensor<1x256x128xbf16>) -> tensor<1x256x128xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 4, slices = [256]>} {
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
    %2 = loom.layer 2 (%1) {stage = 2} : (tensor<1x256x128xbf16>) -> tensor<1x256x128xbf16> {
    ^bb0(%in: tensor<1x256x128xbf16>):
      %o = loom.linear o %in : tensor<1x256x128xbf16> -> tensor<1x256x128xbf16>
      loom.yield %o : tensor<1x256x128xbf16>
    }
    %3 = loom.layer 3 (%2) {stage = 3} : (tensor<1x256x128xbf16>) -> tensor<1x256x128xbf16> {
    ^bb0(%in: tensor<1x256x128xbf16>):
      %o = loom.linear o %in : tensor<1x256x128xbf16> -> tensor<1x256x128xbf16>
      loom.yield %o : tensor<1x256x128xbf16>
    }
    return %3 : tensor<1x256x128xbf16>
  }
}

// -----

// 135 = 27 x 5 tokens: no multiple of 8 divides it, so slices are
// multiples of 3, the least divisor cutting it into at most 128 units. In
// units of W, with 135 tokens moving 2.109 W: one slice 6.219, two (69 +
// 66; 67.5 each is no multiple of 3) 2 + 2.109 + 1 + 1.078 = 6.187, three of
// 45 6.812.
// CHECK-LABEL: func.func @odd
// CHECK-SAME: loom.pipeline = #loom.pipeline<stages = 2, slices = [69, 66]>
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  func.func @odd(%x: tensor<1x135x128xbf16>) -> tensor<1x135x128xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [135]>} {
    %0 = loom.layer 0 (%x) {stage = 0} : (tensor<1x135x128xbf16>) -> tensor<1x135x128xbf16> {
    ^bb0(%in: tensor<1x135x128xbf16>):
      %o = loom.linear o %in : tensor<1x135x128xbf16> -> tensor<1x135x128xbf16>
      loom.yield %o : tensor<1x135x128xbf16>
    }
    %1 = loom.layer 1 (%0) {stage = 1} : (tensor<1x135x128xbf16>) -> tensor<1x135x128xbf16> {
    ^bb0(%in: tensor<1x135x128xbf16>):
      %o = loom.linear o %in : tensor<1x135x128xbf16> -> tensor<1x135x128xbf16>
      loom.yield %o : tensor<1x135x128xbf16>
    }
    return %1 : tensor<1x135x128xbf16>
  }
}

// -----

// A decode step has one new token: one slice.
// CHECK-LABEL: func.func @decode
// CHECK-SAME: loom.pipeline = #loom.pipeline<stages = 2, slices = [1]>
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  func.func @decode(%x: tensor<1x1x128xbf16>) -> tensor<1x1x128xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [1]>} {
    %0 = loom.layer 0 (%x) {stage = 0} : (tensor<1x1x128xbf16>) -> tensor<1x1x128xbf16> {
    ^bb0(%in: tensor<1x1x128xbf16>):
      %a = loom.attention %in, %in, %in {heads = 2, kv_heads = 2, head_dim = 64, causal, cached = 255} : tensor<1x1x128xbf16>, tensor<1x1x128xbf16> -> tensor<1x1x128xbf16>
      loom.yield %a : tensor<1x1x128xbf16>
    }
    %1 = loom.layer 1 (%0) {stage = 1} : (tensor<1x1x128xbf16>) -> tensor<1x1x128xbf16> {
    ^bb0(%in: tensor<1x1x128xbf16>):
      %a = loom.attention %in, %in, %in {heads = 2, kv_heads = 2, head_dim = 64, causal, cached = 255} : tensor<1x1x128xbf16>, tensor<1x1x128xbf16> -> tensor<1x1x128xbf16>
      loom.yield %a : tensor<1x1x128xbf16>
    }
    return %1 : tensor<1x1x128xbf16>
  }
}

// -----

// Layers over per-sample vectors (no sequence dimension) are one unit that
// cannot be cut.
// CHECK-LABEL: func.func @per_sample
// CHECK-SAME: loom.pipeline = #loom.pipeline<stages = 2, slices = [1]>
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  func.func @per_sample(%x: tensor<4x64xbf16>) -> tensor<4x64xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [1]>} {
    %a = loom.layer 0 (%x) {stage = 0} : (tensor<4x64xbf16>) -> tensor<4x64xbf16> {
    ^bb0(%in: tensor<4x64xbf16>):
      %h = loom.linear up %in : tensor<4x64xbf16> -> tensor<4x64xbf16>
      loom.yield %h : tensor<4x64xbf16>
    }
    %b = loom.layer 1 (%a) {stage = 1} : (tensor<4x64xbf16>) -> tensor<4x64xbf16> {
    ^bb0(%in: tensor<4x64xbf16>):
      %h = loom.linear down %in : tensor<4x64xbf16> -> tensor<4x64xbf16>
      loom.yield %h : tensor<4x64xbf16>
    }
    return %b : tensor<4x64xbf16>
  }
}

// A causal model (Inputs/causal-2-stages.mlir): per stage, two 128 x 128
// linears and a causal attention of 4 heads of 32, run as the TPU's flash
// kernels do (flashAttentionWork: blocks of up to 512 queries and 512 keys,
// head_dim padded to 128). A slice of l tokens after c others:
//   linear     (32768 + 512 l) B                       HBM-bound
//   attention  q and out, 512 l B, plus a K and a V block of (c + l) keys
//              x 128 x 2 B per head, once per query block: HBM-bound here
//              (the MXU's 2048 FLOPs a pair and the VPU's work take less)
// (HBM at 819.2e9 x 0.9 B/s; the nominal calibration has no kernel step).
// Unsliced, the 256 tokens are one query block that reads each key once:
// t = 2 x 0.222 + 0.889 = 1.333 us a stage, T = 2 x 1.333 = 2.667 us, the
// best. Cut, the second slice's block reads the first slice's keys again:
// 128 + 128 takes 2.844 us, 144 + 112 2.856 us.
// CAUSAL: remark: TeraPipe: 1 slices [256] on 2 stages, predicted 0.003 ms (sum 0.001 ms + 1 x max 0.001 ms); best equal slicing: 1 x 256 tokens, 0.003 ms; 0.0% better
// CAUSAL: loom.pipeline = #loom.pipeline<stages = 2, slices = [256]>

// A DiT (Inputs/dit-2-stages.mlir), 64 tokens, 4 steps, 2 stages. A patch
// of l tokens takes on each stage two 256 x 256 linears, (131072 + 1024 l)
// B, and a full attention over all 64 keys, (65536 + 1024 l) B (the K/V
// read whole): w(l) = (327680 + 3072 l) / 737.28e9, HBM-bound; 0.711,
// 0.578, 0.511 and 0.478 us for 64, 32, 16 and 8 tokens. Each handover
// costs a hop, 1 us, plus 32768 l / 64 B over a 45e9 B/s link into stage
// 1. Played through 4 steps (PipelinePrediction, PipeFusion's schedule):
//   patches        1        2        4        8
//   warm-up 1   15.602   14.234   14.884   19.426 us
//   warm-up 0   15.602   13.656   13.350   16.858 us
// so 2 patches with one synchronous step, 4 with none; M S / (M S + K - 1)
// = 8 / 9 and 16 / 17.
// DIT: remark: PipeFusion: 2 patches of 32 tokens on 2 stages over 4 steps (1 warm-up), predicted 0.014 ms; pipeline efficiency M*S/(M*S+K-1) = 88.9%; without patches (synchronous steps) 0.016 ms
// DIT: loom.pipeline = #loom.pipeline<stages = 2, slices = [32, 32], patches, steps = 4, warmup = 1>
// DIT0: remark: PipeFusion: 4 patches of 16 tokens on 2 stages over 4 steps (0 warm-up), predicted 0.013 ms; pipeline efficiency M*S/(M*S+K-1) = 94.1%; without patches (synchronous steps) 0.016 ms
// DIT0: loom.pipeline = #loom.pipeline<stages = 2, slices = [16, 16, 16, 16], patches, steps = 4>
