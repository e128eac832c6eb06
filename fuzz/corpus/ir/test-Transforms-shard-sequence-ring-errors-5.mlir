

func.func @joint_text(%i: tensor<1x32x128xbf16>, %t: tensor<1x6x128xbf16>) -> tensor<1x32x128xbf16> {
  // expected-error @+1 {{'loom.joint_attention' op 'ring_text' passes the text's K/V round a ring, but the op has no 'group_size'}}
  %a:2 = loom.joint_attention %i, %i, %i, %t, %t, %t {heads = 2, head_dim = 64, ring_text} : tensor<1x32x128xbf16>, tensor<1x6x128xbf16>
  return %a#0 : tensor<1x32x128xbf16>
}

