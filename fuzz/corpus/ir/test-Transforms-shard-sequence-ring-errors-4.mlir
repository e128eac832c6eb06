

// The joint attention's ring attributes go together.
func.func @joint_group(%i: tensor<1x32x128xbf16>, %t: tensor<1x6x128xbf16>) -> tensor<1x32x128xbf16> {
  // expected-error @+1 {{'loom.joint_attention' op a ring needs both 'group' and 'group_size'}}
  %a:2 = loom.joint_attention %i, %i, %i, %t, %t, %t {heads = 2, head_dim = 64, group = "sp"} : tensor<1x32x128xbf16>, tensor<1x6x128xbf16>
  return %a#0 : tensor<1x32x128xbf16>
}

