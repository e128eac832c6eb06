

// The op's verifier: a ring of one chip is no ring.
func.func @one(%q: tensor<1x32x128xbf16>) -> tensor<1x32x128xbf16> {
  // expected-error @+1 {{'loom.ring_attention' op a ring needs at least 2 chips, got group_size 1}}
  %a = loom.ring_attention %q, %q, %q {heads = 2, kv_heads = 2, head_dim = 64, group = "sp", group_size = 1} : tensor<1x32x128xbf16>, tensor<1x32x128xbf16> -> tensor<1x32x128xbf16>
  return %a : tensor<1x32x128xbf16>
}

