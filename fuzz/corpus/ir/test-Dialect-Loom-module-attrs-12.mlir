

// A language model's graph under a DiT's mode would be cut into PipeFusion
// patches.
// expected-error @+1 {{'loom.model' says mode diffusion, but the model has causal attention (a language model)}}
module attributes {loom.model = #loom.model<name = "x", family = "dit", mode = diffusion, batch = 1, seq = 8, steps = 50>} {
  func.func @f(%q: tensor<1x8x64xbf16>) {
    %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16, causal} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
    return
  }
}

