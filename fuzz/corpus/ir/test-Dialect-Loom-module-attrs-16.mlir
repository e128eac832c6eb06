

// A decode step's sequence is its attention's cache.
// expected-error @+1 {{'loom.model' has seq 100, but the model's attention has cached 99 tokens}}
module attributes {loom.model = #loom.model<name = "x", family = "llama", mode = decode, batch = 1, seq = 100>} {
  func.func @f(%ids: tensor<1x1xi32>, %x: tensor<1x1x64xbf16>) {
    %0 = loom.layer 0(%x) {kind = "llama"} : (tensor<1x1x64xbf16>) -> tensor<1x1x64xbf16> {
    ^bb0(%h: tensor<1x1x64xbf16>):
      %1 = loom.attention %h, %h, %h {heads = 4, kv_heads = 4, head_dim = 16, causal, cached = 99} : tensor<1x1x64xbf16>, tensor<1x1x64xbf16> -> tensor<1x1x64xbf16>
      loom.yield %1 : tensor<1x1x64xbf16>
    }
    return
  }
}

