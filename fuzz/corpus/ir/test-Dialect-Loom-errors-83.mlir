

func.func @attention_k_v_types(%q: tensor<1x8x64xbf16>, %v: tensor<1x4x64xbf16>) {
  // expected-error @+1 {{'loom.attention' op failed to verify that all of {k, v} have same type}}
  %0 = "loom.attention"(%q, %q, %v) {heads = 4 : i64, kv_heads = 4 : i64, head_dim = 16 : i64} : (tensor<1x8x64xbf16>, tensor<1x8x64xbf16>, tensor<1x4x64xbf16>) -> tensor<1x8x64xbf16>
  return
}

