

func.func @attention_q_rank(%q: tensor<8x64xbf16>, %k: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.attention' op expects q of rank 3 [batch, seq, heads * head_dim], got [8, 64]}}
  %0 = loom.attention %q, %k, %k {heads = 4, kv_heads = 4, head_dim = 16} : tensor<8x64xbf16>, tensor<1x8x64xbf16> -> tensor<8x64xbf16>
  return
}

