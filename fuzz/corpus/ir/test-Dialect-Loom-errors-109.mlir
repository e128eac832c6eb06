

func.func @unpatchify_element_type(%x: tensor<1x4x16xbf16>) {
  // expected-error @+1 {{'loom.unpatchify' op expects input and result of the same element type}}
  %0 = loom.unpatchify %x {patch_size = 2} : tensor<1x4x16xbf16> -> tensor<1x4x4x4xi32>
  return
}

