// Verifier rules of loom.attention's decode_query_rows (run by
// attention-decode-rows.mlir).

func.func @rows_without_einsums(%q: tensor<1x1x64xbf16>) {
  // expected-error @+1 {{'loom.attention' op decode_query_rows = 2 needs materialized_scores: only einsums run a decode query as rows}}
  %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16, causal, cached = 8, decode_query_rows = 2} : tensor<1x1x64xbf16>, tensor<1x1x64xbf16> -> tensor<1x1x64xbf16>
  return
}

