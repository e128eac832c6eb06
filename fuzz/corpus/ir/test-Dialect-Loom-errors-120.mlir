

func.func @patchify_video_tokens(%x: tensor<1x16x4x8x8xbf16>) {
  // expected-error @+1 {{'loom.patchify' op expects result shape [1, 32, hidden], got [1, 16, 64]}}
  %0 = loom.patchify %x {patch_size = 2, patch_t = 2} : tensor<1x16x4x8x8xbf16> -> tensor<1x16x64xbf16>
  return
}

