

func.func @mla_q_width(%q: tensor<2x1x95xbf16>, %c: tensor<2x1x40xbf16>) {
  // expected-error @+1 {{'loom.latent_attention' op expects q of width heads * (qk_nope_head_dim + qk_rope_head_dim) = 96, got 95}}
  %a = loom.latent_attention %q, %c {heads = 4, kv_lora_rank = 32, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, causal} : tensor<2x1x95xbf16>, tensor<2x1x40xbf16> -> tensor<2x1x64xbf16>
  return
}

