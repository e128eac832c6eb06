

// Hand-edited metadata that contradicts the tensors: the batch and the
// prompt are the model's inputs.
// expected-error @+1 {{'loom.model' has batch 4, but the model's input 'tensor<2x8xi32>' has 2}}
module attributes {loom.model = #loom.model<name = "x", family = "llama", mode = prefill, batch = 4, seq = 8>} {
  func.func @f(%ids: tensor<2x8xi32>, %x: tensor<2x8x64xbf16>) {
    %0 = loom.layer 0(%x) {kind = "llama"} : (tensor<2x8x64xbf16>) -> tensor<2x8x64xbf16> {
    ^bb0(%h: tensor<2x8x64xbf16>):
      %1 = loom.attention %h, %h, %h {heads = 4, kv_heads = 4, head_dim = 16, causal} : tensor<2x8x64xbf16>, tensor<2x8x64xbf16> -> tensor<2x8x64xbf16>
      loom.yield %1 : tensor<2x8x64xbf16>
    }
    return
  }
}

