// RUN: loom-opt %s -split-input-file -verify-diagnostics --loom-check-memory=remarks=true

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

