

func.func @attention_kv_hidden(%q: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.attention' op kv_heads * head_dim (2 * 16 = 32) does not match k's hidden size 64}}
  %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 2, head_dim = 16} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

