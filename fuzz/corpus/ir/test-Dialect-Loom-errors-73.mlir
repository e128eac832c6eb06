

func.func @attention_hidden(%q: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.attention' op heads * head_dim (4 * 8 = 32) does not match q's hidden size 64}}
  %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 8} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

