

func.func @patchify_image_patch_t(%x: tensor<1x16x8x8xbf16>) {
  // expected-error @+1 {{'loom.patchify' op has patch_t but an image (rank 4) input}}
  %0 = loom.patchify %x {patch_size = 2, patch_t = 2} : tensor<1x16x8x8xbf16> -> tensor<1x16x64xbf16>
  return
}

