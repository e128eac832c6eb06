

func.func @rows_zero(%q: tensor<1x1x64xbf16>) {
  // expected-error @+1 {{'loom.attention' op attribute 'decode_query_rows' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16, causal, cached = 8, materialized_scores, decode_query_rows = 0} : tensor<1x1x64xbf16>, tensor<1x1x64xbf16> -> tensor<1x1x64xbf16>
  return
}

