

func.func @scales_without_int8_cache(%q: tensor<1x1x64xbf16>) {
  // expected-error @+1 {{'loom.attention' op kv_scales_across_heads needs a quantized KV cache (kv_type): only its scales are reduced}}
  %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16, causal, cached = 8, materialized_scores, kv_scales_across_heads} : tensor<1x1x64xbf16>, tensor<1x1x64xbf16> -> tensor<1x1x64xbf16>
  return
}
