

func.func @joint_attention_batch(%i: tensor<1x16x64xbf16>, %t: tensor<2x6x64xbf16>) {
  // expected-error @+1 {{'loom.joint_attention' op image batch 1 differs from text batch 2}}
  %0:2 = loom.joint_attention %i, %i, %i, %t, %t, %t {heads = 4, head_dim = 16} : tensor<1x16x64xbf16>, tensor<2x6x64xbf16>
  return
}

