

func.func @joint_one(%i: tensor<1x32x128xbf16>, %t: tensor<1x6x128xbf16>) -> tensor<1x32x128xbf16> {
  // expected-error @+1 {{'loom.joint_attention' op a ring needs at least 2 chips, got group_size 1}}
  %a:2 = loom.joint_attention %i, %i, %i, %t, %t, %t {heads = 2, head_dim = 64, group = "sp", group_size = 1} : tensor<1x32x128xbf16>, tensor<1x6x128xbf16>
  return %a#0 : tensor<1x32x128xbf16>
}
