

// MLA's latent is shared by every head: there are no heads to trade the
// sequence for (the attention's rule has no heads in its keys).
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @latent(%q: tensor<1x96x96xbf16>, %c: tensor<1x96x40xbf16>) -> tensor<1x96x64xbf16> {
    %y = loom.layer 0 (%q, %c) : (tensor<1x96x96xbf16>, tensor<1x96x40xbf16>) -> tensor<1x96x64xbf16> {
    ^bb0(%in: tensor<1x96x96xbf16>, %lat: tensor<1x96x40xbf16>):
      // expected-error @+1 {{cannot split the sequence 3 ways: Ulysses over latent (MLA) attention is not implemented; valid sequence-parallel degrees on v5e-4 with tp = 1: 1}}
      %a = loom.latent_attention %in, %lat {heads = 4, kv_lora_rank = 32, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, causal} : tensor<1x96x96xbf16>, tensor<1x96x40xbf16> -> tensor<1x96x64xbf16>
      loom.yield %a : tensor<1x96x64xbf16>
    }
    return %y : tensor<1x96x64xbf16>
  }
}

