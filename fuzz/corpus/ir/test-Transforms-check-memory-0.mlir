// RUN: loom-opt %s -split-input-file -verify-diagnostics --loom-check-memory=remarks=true
// A diffusion model's stages keep the previous step's K/V for PipeFusion's
// stale patches (Inputs/dit-2-stages.mlir, one patch): 2 x 131072 B of
// weights, 3 x 32768 B of results in flight, and the K/V of each layer's
// 64 tokens, 2 x 64 x 256 x 2 B = 65536 B.
// RUN: loom-opt %S/Inputs/dit-2-stages.mlir --loom-check-memory=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=DIT
// DIT: remark: stage 0 (layers 0-0): 425.98 kB of 16.00 GB per chip (0%): weights of layers 0-0 262.14 kB, activations in flight 98.30 kB, stale K/V of the previous step 65.54 kB
// DIT: remark: stage 1 (layers 1-1): 425.98 kB

// 2 x 65536^2 x 2 B = 17.18 GB of weights in one stage, plus two 1 MB
// results: the error names the stage, the total and the largest items.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [1, 1]>} {
  func.func @huge(%x: tensor<1x8x65536xbf16>) -> tensor<1x8x65536xbf16> {
    // expected-error @+1 {{stage 0 (layers 0-0) needs 17.18 GB of HBM per chip, more than the 16.00 GB of a tpu-v5e chip; largest items: weights of layers 0-0 17.18 GB, activations in flight 2.10 MB (largest layer: 0 at 17.18 GB)}}
    %a = loom.layer 0 (%x) : (tensor<1x8x65536xbf16>) -> tensor<1x8x65536xbf16> {
    ^bb0(%in: tensor<1x8x65536xbf16>):
      %h = loom.linear up %in : tensor<1x8x65536xbf16> -> tensor<1x8x65536xbf16>
      %g = loom.linear down %h : tensor<1x8x65536xbf16> -> tensor<1x8x65536xbf16>
      loom.yield %g : tensor<1x8x65536xbf16>
    }
    return %a : tensor<1x8x65536xbf16>
  }
}

