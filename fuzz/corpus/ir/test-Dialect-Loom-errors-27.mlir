

func.func @unpatchify_result_rank(%x: tensor<2x16x32xbf16>) {
  // expected-error @+1 {{'loom.unpatchify' op expects result of rank 4 [batch, channels, height, width] or 5 [batch, channels, frames, height, width], got [2, 8, 64]}}
  %0 = loom.unpatchify %x {patch_size = 2} : tensor<2x16x32xbf16> -> tensor<2x8x64xbf16>
  return
}

