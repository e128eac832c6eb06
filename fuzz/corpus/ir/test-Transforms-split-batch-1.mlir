

// A decode step: one new token per sequence; the cache of 255 tokens per
// sequence is the attention's, and a function argument that enters a layer
// directly takes the split of the ops inside it.
// CHECK: loom.model = #loom.model<name = "step", family = "llama", mode = decode, batch = 1, seq = 255>
// CHECK: func.func @step(%{{.*}}: tensor<1x1x128xbf16>) -> tensor<1x1x128xbf16>
// CHECK: loom.attention {{.*}}cached = 255 : i64{{.*}} : tensor<1x1x128xbf16>, tensor<1x1x128xbf16> -> tensor<1x1x128xbf16>
module attributes {loom.model = #loom.model<name = "step", family = "llama", mode = decode, batch = 4, seq = 255>} {
  func.func @step(%x: tensor<4x1x128xbf16>) -> tensor<4x1x128xbf16> {
    %y = loom.layer 0(%x) {kind = "llama"} : (tensor<4x1x128xbf16>) -> tensor<4x1x128xbf16> {
    ^bb0(%h: tensor<4x1x128xbf16>):
      %a = loom.attention %h, %h, %h {heads = 2, kv_heads = 2, head_dim = 64, causal, cached = 255} : tensor<4x1x128xbf16>, tensor<4x1x128xbf16> -> tensor<4x1x128xbf16>
      loom.yield %a : tensor<4x1x128xbf16>
    }
    return %y : tensor<4x1x128xbf16>
  }
}

