

func.func @attention_integer(%q: tensor<1x8x64xi8>) {
  // expected-error @+1 {{'loom.attention' op expects q to have a floating-point element type, got 'tensor<1x8x64xi8>'}}
  %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16} : tensor<1x8x64xi8>, tensor<1x8x64xi8> -> tensor<1x8x64xi8>
  return
}

