

func.func @kv_without_cache(%q: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.attention' op has a KV cache type but no KV cache (only a causal attention keeps one)}}
  %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16, kv_type = i8} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}
