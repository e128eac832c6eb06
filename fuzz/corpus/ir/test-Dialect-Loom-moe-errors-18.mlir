

func.func @mla_kv_type(%q: tensor<2x1x96xbf16>, %c: tensor<2x1x40xbf16>) {
  // expected-error @+1 {{'loom.latent_attention' op expects kv_type i8 or bf16, got 'f16'}}
  %a = loom.latent_attention %q, %c {heads = 4, kv_lora_rank = 32, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, causal, kv_type = f16} : tensor<2x1x96xbf16>, tensor<2x1x40xbf16> -> tensor<2x1x64xbf16>
  return
}
