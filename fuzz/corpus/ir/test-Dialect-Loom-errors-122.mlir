

func.func @unpatchify_video_features(%x: tensor<1x32x64xbf16>) {
  // expected-error @+1 {{'loom.unpatchify' op expects input shape [1, 32, 128] for result [1, 16, 4, 8, 8], got [1, 32, 64]}}
  %0 = loom.unpatchify %x {patch_size = 2, patch_t = 2} : tensor<1x32x64xbf16> -> tensor<1x16x4x8x8xbf16>
  return
}
