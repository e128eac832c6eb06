

// The op's verifier: a causal ring holds as many queries as keys.
func.func @causal(%q: tensor<1x32x128xbf16>, %k: tensor<1x16x128xbf16>) -> tensor<1x32x128xbf16> {
  // expected-error @+1 {{'loom.ring_attention' op a causal ring expects as many queries as keys in hand, got 32 and 16}}
  %a = loom.ring_attention %q, %k, %k {heads = 2, kv_heads = 2, head_dim = 64, group = "sp", group_size = 2, causal} : tensor<1x32x128xbf16>, tensor<1x16x128xbf16> -> tensor<1x32x128xbf16>
  return %a : tensor<1x32x128xbf16>
}

