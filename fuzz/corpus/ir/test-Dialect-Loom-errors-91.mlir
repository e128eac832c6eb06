

func.func @joint_attention_integer(%i: tensor<1x16x64xi32>, %t: tensor<1x6x64xi32>) {
  // expected-error @+1 {{'loom.joint_attention' op expects q_img to have a floating-point element type, got 'tensor<1x16x64xi32>'}}
  %0:2 = loom.joint_attention %i, %i, %i, %t, %t, %t {heads = 4, head_dim = 16} : tensor<1x16x64xi32>, tensor<1x6x64xi32>
  return
}

