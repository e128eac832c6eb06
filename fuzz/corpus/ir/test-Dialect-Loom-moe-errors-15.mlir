

func.func @mla_element(%q: tensor<2x1x96xbf16>, %c: tensor<2x1x40xf32>) {
  // expected-error @+1 {{'loom.latent_attention' op expects q, latent and result of one element type}}
  %a = loom.latent_attention %q, %c {heads = 4, kv_lora_rank = 32, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, causal} : tensor<2x1x96xbf16>, tensor<2x1x40xf32> -> tensor<2x1x64xbf16>
  return
}

