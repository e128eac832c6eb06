

// expected-error @+1 {{a decode step is not trained: derive the training step from a prefill (or DiT) module}}
module attributes {loom.model = #loom.model<name = "x", family = "llama", mode = decode, batch = 1, seq = 100>} {
  func.func @f(%x: tensor<1x1x64xbf16>) -> tensor<1x1x64xbf16> {
    %0 = loom.layer 0(%x) {kind = "llama"} : (tensor<1x1x64xbf16>) -> tensor<1x1x64xbf16> {
    ^bb0(%h: tensor<1x1x64xbf16>):
      %1 = loom.attention %h, %h, %h {heads = 4, kv_heads = 4, head_dim = 16, causal, cached = 100} : tensor<1x1x64xbf16>, tensor<1x1x64xbf16> -> tensor<1x1x64xbf16>
      loom.yield %1 : tensor<1x1x64xbf16>
    }
    return %0 : tensor<1x1x64xbf16>
  }
}
