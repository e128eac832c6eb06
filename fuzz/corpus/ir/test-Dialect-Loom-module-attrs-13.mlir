

// expected-error @+1 {{'loom.model' says mode prefill, a causal language model, but none of the model's attention is causal}}
module attributes {loom.model = #loom.model<name = "x", family = "llama", mode = prefill, batch = 1, seq = 8>} {
  func.func @f(%q: tensor<1x8x64xbf16>) {
    %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
    return
  }
}

