

func.func @attention_mixed_types(%q: tensor<1x2x4xbf16>, %k: tensor<1x2x4xf32>) {
  // expected-error @+1 {{'loom.attention' op expects q and k of the same element type}}
  %0 = loom.attention %q, %k, %k {heads = 1, kv_heads = 1, head_dim = 4} : tensor<1x2x4xbf16>, tensor<1x2x4xf32> -> tensor<1x2x4xbf16>
  return
}

