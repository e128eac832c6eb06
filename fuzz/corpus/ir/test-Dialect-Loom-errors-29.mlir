

func.func @unpatchify_shape(%x: tensor<2x16x16xbf16>) {
  // expected-error @+1 {{'loom.unpatchify' op expects input shape [2, 16, 32] for result [2, 8, 8, 8], got [2, 16, 16]}}
  %0 = loom.unpatchify %x {patch_size = 2} : tensor<2x16x16xbf16> -> tensor<2x8x8x8xbf16>
  return
}

