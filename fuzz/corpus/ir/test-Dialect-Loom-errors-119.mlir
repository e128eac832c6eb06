

func.func @patchify_video_frames(%x: tensor<1x16x5x8x8xbf16>) {
  // expected-error @+1 {{'loom.patchify' op expects frames divisible by patch_t 2, got 5}}
  %0 = loom.patchify %x {patch_size = 2, patch_t = 2} : tensor<1x16x5x8x8xbf16> -> tensor<1x32x64xbf16>
  return
}

