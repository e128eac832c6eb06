

// A sliding window (Mistral's local attention) stays striped over the
// ring and keeps its window: each chip's 24 of the 96 queries see at most
// 32 keys, an equal share of the windowed pairs.
// CHECK-LABEL: func.func @window_llm
// CHECK: loom.ring_attention {{.*}} {causal, group = "sp", group_size = 4 : i64, head_dim = 64 : i64, heads = 2 : i64, kv_heads = 2 : i64, window = 32 : i64} : tensor<1x24x128xbf16>, tensor<1x24x128xbf16> -> tensor<1x24x128xbf16>
module attributes {loom.model = #loom.model<name = "toy-llm", family = "mistral", mode = prefill, batch = 1, seq = 96>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  func.func @window_llm(%x: tensor<1x96x128xbf16>) -> tensor<1x96x128xbf16> {
    %0 = loom.layer 0 (%x) : (tensor<1x96x128xbf16>) -> tensor<1x96x128xbf16> {
    ^bb0(%in: tensor<1x96x128xbf16>):
      %q = loom.linear q %in : tensor<1x96x128xbf16> -> tensor<1x96x128xbf16>
      %a = loom.attention %q, %q, %q {heads = 2, kv_heads = 2, head_dim = 64, causal, window = 32} : tensor<1x96x128xbf16>, tensor<1x96x128xbf16> -> tensor<1x96x128xbf16>
      loom.yield %a : tensor<1x96x128xbf16>
    }
    return %0 : tensor<1x96x128xbf16>
  }
}

