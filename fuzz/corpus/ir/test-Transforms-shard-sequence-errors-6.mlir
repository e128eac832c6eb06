

// Decode: the keys are mostly the cache's (a cached reduction factor), and
// each sequence has one query.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @decode(%x: tensor<1x1x128xbf16>) -> tensor<1x1x128xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x1x128xbf16>) -> tensor<1x1x128xbf16> {
    ^bb0(%in: tensor<1x1x128xbf16>):
      // expected-error @+1 {{cannot split the sequence 3 ways: attention over a KV cache (decode) has one query per sequence, nothing to split; valid sequence-parallel degrees on v5e-4 with tp = 1: 1}}
      %a = loom.attention %in, %in, %in {heads = 2, kv_heads = 2, head_dim = 64, causal, cached = 255} : tensor<1x1x128xbf16>, tensor<1x1x128xbf16> -> tensor<1x1x128xbf16>
      loom.yield %a : tensor<1x1x128xbf16>
    }
    return %y : tensor<1x1x128xbf16>
  }
}
