

func.func @activation_unknown_kind(%x: tensor<1x8x64xbf16>) {
  // expected-error @+2 {{failed to parse Loom_ActivationKindAttr parameter 'value' which is to be a `::loom::ActivationKind`}}
  // expected-error @+1 {{expected ::loom::ActivationKind to be one of: gelu, gelu_tanh, silu, relu}}
  %0 = loom.activation tanh %x : tensor<1x8x64xbf16>
  return
}

