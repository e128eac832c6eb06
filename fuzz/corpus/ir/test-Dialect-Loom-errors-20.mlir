

func.func @patchify_input_rank(%x: tensor<2x4x8xbf16>) {
  // expected-error @+1 {{'loom.patchify' op expects input of rank 4 [batch, channels, height, width] or 5 [batch, channels, frames, height, width], got [2, 4, 8]}}
  %0 = loom.patchify %x {patch_size = 2} : tensor<2x4x8xbf16> -> tensor<2x16x64xbf16>
  return
}

