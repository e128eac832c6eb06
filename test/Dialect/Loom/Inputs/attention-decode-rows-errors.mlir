// Verifier rules of loom.attention's decode_query_rows (run by
// attention-decode-rows.mlir).

func.func @rows_without_einsums(%q: tensor<1x1x64xbf16>) {
  // expected-error @+1 {{'loom.attention' op decode_query_rows = 2 needs materialized_scores: only einsums run a decode query as rows}}
  %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16, causal, cached = 8, decode_query_rows = 2} : tensor<1x1x64xbf16>, tensor<1x1x64xbf16> -> tensor<1x1x64xbf16>
  return
}

// -----

func.func @rows_zero(%q: tensor<1x1x64xbf16>) {
  // expected-error @+1 {{'loom.attention' op attribute 'decode_query_rows' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16, causal, cached = 8, materialized_scores, decode_query_rows = 0} : tensor<1x1x64xbf16>, tensor<1x1x64xbf16> -> tensor<1x1x64xbf16>
  return
}

// -----

func.func @scales_without_int8_cache(%q: tensor<1x1x64xbf16>) {
  // expected-error @+1 {{'loom.attention' op kv_scales_across_heads needs a quantized KV cache (kv_type): only its scales are reduced}}
  %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16, causal, cached = 8, materialized_scores, kv_scales_across_heads} : tensor<1x1x64xbf16>, tensor<1x1x64xbf16> -> tensor<1x1x64xbf16>
  return
}
