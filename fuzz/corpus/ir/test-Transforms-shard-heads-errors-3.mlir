

// MLA: its q projection is named first, in program order (the latent every
// head shares is checked where it stands, not with the attentions whose keys
// split by heads).
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
  func.func @latent(%x: tensor<1x8x64xbf16>, %c: tensor<1x8x39xbf16>) -> tensor<1x8x48xbf16> {
    // expected-error @+1 {{cannot split 4 ways: output width 69 of this q projection is not divisible by tp = 4; valid tensor-parallel degrees on v5e-16: 1}}
    %q = loom.linear q %x : tensor<1x8x64xbf16> -> tensor<1x8x69xbf16>
    %a = loom.latent_attention %q, %c {heads = 3, kv_lora_rank = 32, qk_nope_head_dim = 16, qk_rope_head_dim = 7, v_head_dim = 16, causal} : tensor<1x8x69xbf16>, tensor<1x8x39xbf16> -> tensor<1x8x48xbf16>
    return %a : tensor<1x8x48xbf16>
  }
}

