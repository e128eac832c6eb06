

// 4 * 128 * 2^20 queries * (2^33 - 2^20 cached + 2^20 keys) = 2^62 exactly.
func.func @cost_at_limit(%q: tensor<1x1048576x128xbf16>) {
  // expected-error @+1 {{'loom.attention' op needs 4611686018427387904 FLOPs, past Loom's 64-bit cost figures}}
  %0 = loom.attention %q, %q, %q {heads = 1, kv_heads = 1, head_dim = 128, cached = 8588886016} : tensor<1x1048576x128xbf16>, tensor<1x1048576x128xbf16> -> tensor<1x1048576x128xbf16>
  return
}

