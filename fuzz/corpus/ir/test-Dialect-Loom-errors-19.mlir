

func.func @linear_unknown_role(%x: tensor<1x8x64xbf16>) {
  // expected-error @+2 {{failed to parse Loom_LinearRoleAttr parameter 'value' which is to be a `::loom::LinearRole`}}
  // expected-error @+1 {{expected ::loom::LinearRole to be one of: q, k, v, qkv, o, gate, up, down, fc1, fc2, modulation, embed, cond, context, lm_head, proj_out}}
  %0 = loom.linear ffn %x : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

//===----------------------------------------------------------------------===//
// loom.patchify / loom.unpatchify / loom.timestep_embed
//===----------------------------------------------------------------------===//

