

// Weights: q, k, o of 64 x 64 x 2 B = 24.58 kB; activations: four 8 x 64
// bf16 results = 4.10 kB; the causal layer keeps the K/V of its 8 tokens:
// 2 x 8 x 64 x 2 B = 2.05 kB; 30.72 kB in all.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [1, 1]>} {
  func.func @small(%x: tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    // expected-remark @+1 {{stage 0 (layers 0-0): 30.72 kB of 16.00 GB per chip (0%): weights of layers 0-0 24.58 kB, activations in flight 4.10 kB, KV cache 2.05 kB}}
    %a = loom.layer 0 (%x) : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    ^bb0(%in: tensor<1x8x64xbf16>):
      %q = loom.linear q %in : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      %k = loom.linear k %in : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      %a = loom.attention %q, %k, %k {heads = 4, kv_heads = 4, head_dim = 16, causal} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      %o = loom.linear o %a : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      loom.yield %o : tensor<1x8x64xbf16>
    }
    return %a : tensor<1x8x64xbf16>
  }
}

