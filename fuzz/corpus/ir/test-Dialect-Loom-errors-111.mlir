

func.func @joint_mixed_types(%i: tensor<1x2x4xbf16>, %t: tensor<1x2x4xf32>) {
  // expected-error @+1 {{'loom.joint_attention' op expects image and text streams of the same element type}}
  %a, %b = loom.joint_attention %i, %i, %i, %t, %t, %t {heads = 1, head_dim = 4} : tensor<1x2x4xbf16>, tensor<1x2x4xf32>
  return
}

