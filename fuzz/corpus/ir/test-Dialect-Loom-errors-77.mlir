

func.func @attention_causal_cross(%q: tensor<2x16x64xbf16>, %c: tensor<2x10x64xbf16>) {
  // expected-error @+1 {{'loom.attention' op cross attention cannot be causal}}
  %0 = loom.attention %q, %c, %c {heads = 4, kv_heads = 4, head_dim = 16, causal, cross} : tensor<2x16x64xbf16>, tensor<2x10x64xbf16> -> tensor<2x16x64xbf16>
  return
}

