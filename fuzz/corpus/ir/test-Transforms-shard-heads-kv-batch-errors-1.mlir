

// As many KV heads as chips: no cache is repeated, nothing to split.
// expected-error @+1 {{kv-batch = 2 splits the caches of KV heads held by several chips, but no causal attention has fewer KV heads than tp = 4 chips}}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @mha(%x: tensor<4x1x256xbf16>) -> tensor<4x1x256xbf16> {
    %h = loom.layer 0 (%x) {kind = "llama"} : (tensor<4x1x256xbf16>) -> tensor<4x1x256xbf16> {
    ^bb0(%in: tensor<4x1x256xbf16>):
      %q = loom.linear q %in : tensor<4x1x256xbf16> -> tensor<4x1x256xbf16>
      %k = loom.linear k %in : tensor<4x1x256xbf16> -> tensor<4x1x256xbf16>
      %v = loom.linear v %in : tensor<4x1x256xbf16> -> tensor<4x1x256xbf16>
      %a = loom.attention %q, %k, %v {heads = 8, kv_heads = 8, head_dim = 32, causal, cached = 7} : tensor<4x1x256xbf16>, tensor<4x1x256xbf16> -> tensor<4x1x256xbf16>
      loom.yield %a : tensor<4x1x256xbf16>
    }
    return %h : tensor<4x1x256xbf16>
  }
}
