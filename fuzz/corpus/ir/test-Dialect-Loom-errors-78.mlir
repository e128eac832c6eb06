

func.func @attention_causal_lengths(%q: tensor<1x1x64xbf16>, %k: tensor<1x8x32xbf16>) {
  // expected-error @+1 {{'loom.attention' op causal attention expects as many queries as new keys, got 1 and 8 (earlier tokens belong in 'cached')}}
  %0 = loom.attention %q, %k, %k {heads = 4, kv_heads = 2, head_dim = 16, causal} : tensor<1x1x64xbf16>, tensor<1x8x32xbf16> -> tensor<1x1x64xbf16>
  return
}

