

func.func @joint_attention_rank(%i: tensor<16x64xbf16>, %t: tensor<1x6x64xbf16>) {
  // expected-error @+1 {{'loom.joint_attention' op expects q_img of rank 3 [batch, seq, heads * head_dim], got [16, 64]}}
  %0:2 = loom.joint_attention %i, %i, %i, %t, %t, %t {heads = 4, head_dim = 16} : tensor<16x64xbf16>, tensor<1x6x64xbf16>
  return
}

