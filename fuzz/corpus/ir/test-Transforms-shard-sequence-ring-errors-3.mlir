

// The op's verifier: a sliding window keeps the latest keys before each
// query, so only a causal ring has one.
func.func @window(%q: tensor<1x32x128xbf16>) -> tensor<1x32x128xbf16> {
  // expected-error @+1 {{'loom.ring_attention' op a sliding window (window = 8) needs a causal ring}}
  %a = loom.ring_attention %q, %q, %q {heads = 2, kv_heads = 2, head_dim = 64, group = "sp", group_size = 2, window = 8} : tensor<1x32x128xbf16>, tensor<1x32x128xbf16> -> tensor<1x32x128xbf16>
  return %a : tensor<1x32x128xbf16>
}

