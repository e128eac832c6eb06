

func.func @attention_batch(%q: tensor<1x8x64xbf16>, %k: tensor<2x8x64xbf16>) {
  // expected-error @+1 {{'loom.attention' op q has batch 1 but k has batch 2}}
  %0 = loom.attention %q, %k, %k {heads = 4, kv_heads = 4, head_dim = 16} : tensor<1x8x64xbf16>, tensor<2x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

