

func.func @attention_negative_cached(%q: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{attribute 'cached' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16, causal, cached = -1} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

