

func.func @attention_kv_heads_divide(%q: tensor<1x8x64xbf16>, %k: tensor<1x8x48xbf16>) {
  // expected-error @+1 {{'loom.attention' op kv_heads 3 does not divide heads 4}}
  %0 = loom.attention %q, %k, %k {heads = 4, kv_heads = 3, head_dim = 16} : tensor<1x8x64xbf16>, tensor<1x8x48xbf16> -> tensor<1x8x64xbf16>
  return
}

