

func.func @unpatchify_not_divisible(%x: tensor<2x16x32xbf16>) {
  // expected-error @+1 {{'loom.unpatchify' op expects height and width divisible by patch_size 2, got 8x7}}
  %0 = loom.unpatchify %x {patch_size = 2} : tensor<2x16x32xbf16> -> tensor<2x8x8x7xbf16>
  return
}

