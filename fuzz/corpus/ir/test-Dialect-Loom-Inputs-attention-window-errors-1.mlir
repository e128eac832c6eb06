

func.func @window_zero(%q: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.attention' op attribute 'window' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16, causal, window = 0} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}
