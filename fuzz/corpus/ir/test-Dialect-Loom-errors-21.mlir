

func.func @patchify_result_rank(%x: tensor<2x4x8x8xbf16>) {
  // expected-error @+1 {{'loom.patchify' op expects result of rank 3 [batch, patches, hidden], got [32, 64]}}
  %0 = loom.patchify %x {patch_size = 2} : tensor<2x4x8x8xbf16> -> tensor<32x64xbf16>
  return
}

