// RUN: loom-opt %s -split-input-file -verify-diagnostics --loom-shard-sequence="sp=3 mode=ring"

// What ring attention refuses, at the op, naming the valid degrees.

// A ring needs no condition on the heads, only on the tokens: 64 tokens do
// not split three ways; the degrees that do on v5e-4's 4 chips are named
// (2 heads: Ulysses could take 2, never 4; a ring takes 4).
// expected-error @+1 {{cannot split the sequence 3 ways: sp = 3 does not divide the 64 tokens each layer sees; valid sequence-parallel degrees on v5e-4 with tp = 1: 1, 2, 4}}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @tokens(%x: tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16> {
    ^bb0(%in: tensor<1x64x128xbf16>):
      %a = loom.attention %in, %in, %in {heads = 2, kv_heads = 2, head_dim = 64} : tensor<1x64x128xbf16>, tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      loom.yield %a : tensor<1x64x128xbf16>
    }
    return %y : tensor<1x64x128xbf16>
  }
}

