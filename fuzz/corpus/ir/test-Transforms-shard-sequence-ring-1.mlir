

// Causal prefill (an LLM layer of 2 heads, 2 KV heads, 64 tokens): the
// ring keeps the mask, striped (token i on chip i mod 4, Brandon et al.
// 2023) so each chip's 16 queries see a quarter of the causal pairs.
// CHECK-LABEL: func.func @causal_llm
// CHECK: loom.ring_attention {{.*}} {causal, group = "sp", group_size = 4 : i64, head_dim = 64 : i64, heads = 2 : i64, kv_heads = 2 : i64} : tensor<1x16x128xbf16>, tensor<1x16x128xbf16> -> tensor<1x16x128xbf16>
module attributes {loom.model = #loom.model<name = "toy-llm", family = "llama", mode = prefill, batch = 1, seq = 64>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  func.func @causal_llm(%x: tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16> {
    %0 = loom.layer 0 (%x) : (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16> {
    ^bb0(%in: tensor<1x64x128xbf16>):
      %q = loom.linear q %in : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %a = loom.attention %q, %q, %q {heads = 2, kv_heads = 2, head_dim = 64, causal} : tensor<1x64x128xbf16>, tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      loom.yield %a : tensor<1x64x128xbf16>
    }
    return %0 : tensor<1x64x128xbf16>
  }
}

