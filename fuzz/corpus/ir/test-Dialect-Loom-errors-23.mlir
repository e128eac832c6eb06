

func.func @patchify_result_shape(%x: tensor<2x4x8x8xbf16>) {
  // expected-error @+1 {{'loom.patchify' op expects result shape [2, 16, hidden], got [2, 64, 64]}}
  %0 = loom.patchify %x {patch_size = 2} : tensor<2x4x8x8xbf16> -> tensor<2x64x64xbf16>
  return
}

