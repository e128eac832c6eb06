

func.func @patchify_not_divisible(%x: tensor<2x4x8x8xbf16>) {
  // expected-error @+1 {{'loom.patchify' op expects height and width divisible by patch_size 3, got 8x8}}
  %0 = loom.patchify %x {patch_size = 3} : tensor<2x4x8x8xbf16> -> tensor<2x4x64xbf16>
  return
}

