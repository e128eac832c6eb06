

func.func @joint_attention_hidden(%i: tensor<1x16x64xbf16>, %t: tensor<1x6x32xbf16>) {
  // expected-error @+1 {{'loom.joint_attention' op heads * head_dim (4 * 16 = 64) does not match the image and text hidden sizes 64 and 32}}
  %0:2 = loom.joint_attention %i, %i, %i, %t, %t, %t {heads = 4, head_dim = 16} : tensor<1x16x64xbf16>, tensor<1x6x32xbf16>
  return
}

