// loom-split-tokens{microbatches=M}: a batch of sequences runs as M
// microbatches of batch / M sequences, each cut into the same slices, and
// the slicing DP minimises M * sum(t_i) + (K - 1) * max(t_i), t_i a slice
// of one microbatch (TeraPipe's objective over M x slices units). Worked
// by hand on the toy layer of split-tokens.mlir, with a batch of 2.
// RUN: loom-opt %s --loom-split-tokens | FileCheck %s --check-prefix=WHOLE
// RUN: loom-opt %s --loom-split-tokens=microbatches=2 | FileCheck %s --check-prefix=HALVES
// RUN: loom-opt %s "--loom-split-tokens=microbatches=2 report=true" 2>&1 | FileCheck %s --check-prefix=REPORT
// The attribute round-trips; the lowering runs each microbatch's slices.
// RUN: loom-opt %s --loom-split-tokens=microbatches=2 | loom-opt | FileCheck %s --check-prefix=HALVES

// Times from v5e's nominal figures (calibration = "nominal"), HBM-bound:
// a slice of l tokens of b sequences through the 128 x 128 linear reads the
// W = 32768 B of weights again plus 512 B per token and sequence (in and
// out), t = W + 512 b l (in units of 1 / 737.28e9 s). On K = 4 stages:
//   whole batch (b = 2), S equal slices of 256 / S tokens:
//     T = S W + 8 W + 3 (W + 1024 l_max): S = 3, 4, 5, 6 give 22.25, 21,
//     21.25, 21.5 W: four slices of 64;
//   2 microbatches (b = 1): T = 2 (S W + 4 W) + 3 (W + 512 l_max):
//     S = 1, 2, 3, 4 give 25, 21, 21.125, 22 W: two slices of 128.
// WHOLE: loom.pipeline = #loom.pipeline<stages = 4, slices = [64, 64, 64, 64]>
// HALVES: loom.pipeline = #loom.pipeline<stages = 4, slices = [128, 128], microbatches = 2>
// REPORT: remark: TeraPipe: 2 slices [128, 128] on 4 stages for each of 2 microbatches, predicted {{.*}} ms (2 x sum {{.*}} ms + 3 x max {{.*}} ms)
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  func.func @linear_batch_two(%x: tensor<2x256x128xbf16>) -> tensor<2x256x128xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 4, slices = [256]>} {
    %0 = loom.layer 0 (%x) {stage = 0} : (tensor<2x256x128xbf16>) -> tensor<2x256x128xbf16> {
    ^bb0(%in: tensor<2x256x128xbf16>):
      %o = loom.linear o %in : tensor<2x256x128xbf16> -> tensor<2x256x128xbf16>
      loom.yield %o : tensor<2x256x128xbf16>
    }
    %1 = loom.layer 1 (%0) {stage = 1} : (tensor<2x256x128xbf16>) -> tensor<2x256x128xbf16> {
    ^bb0(%in: tensor<2x256x128xbf16>):
      %o = loom.linear o %in : tensor<2x256x128xbf16> -> tensor<2x256x128xbf16>
      loom.yield %o : tensor<2x256x128xbf16>
    }
    %2 = loom.layer 2 (%1) {stage = 2} : (tensor<2x256x128xbf16>) -> tensor<2x256x128xbf16> {
    ^bb0(%in: tensor<2x256x128xbf16>):
      %o = loom.linear o %in : tensor<2x256x128xbf16> -> tensor<2x256x128xbf16>
      loom.yield %o : tensor<2x256x128xbf16>
    }
    %3 = loom.layer 3 (%2) {stage = 3} : (tensor<2x256x128xbf16>) -> tensor<2x256x128xbf16> {
    ^bb0(%in: tensor<2x256x128xbf16>):
      %o = loom.linear o %in : tensor<2x256x128xbf16> -> tensor<2x256x128xbf16>
      loom.yield %o : tensor<2x256x128xbf16>
    }
    return %3 : tensor<2x256x128xbf16>
  }
}
