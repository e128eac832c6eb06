

// expected-error @+1 {{'loom.model' has seq 2048, but the model's layers see 8 tokens}}
module attributes {loom.model = #loom.model<name = "x", family = "llama", mode = prefill, batch = 2, seq = 2048>} {
  func.func @f(%ids: tensor<2x8xi32>, %x: tensor<2x8x64xbf16>) {
    %0 = loom.layer 0(%x) {kind = "llama"} : (tensor<2x8x64xbf16>) -> tensor<2x8x64xbf16> {
    ^bb0(%h: tensor<2x8x64xbf16>):
      %1 = loom.attention %h, %h, %h {heads = 4, kv_heads = 4, head_dim = 16, causal} : tensor<2x8x64xbf16>, tensor<2x8x64xbf16> -> tensor<2x8x64xbf16>
      loom.yield %1 : tensor<2x8x64xbf16>
    }
    return
  }
}

