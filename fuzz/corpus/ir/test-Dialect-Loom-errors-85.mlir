

func.func @attention_negative_head_dim(%q: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{attribute 'head_dim' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = -16} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

