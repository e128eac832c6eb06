

func.func @patchify_zero_patch(%x: tensor<2x4x8x8xbf16>) {
  // expected-error @+1 {{attribute 'patch_size' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = loom.patchify %x {patch_size = 0} : tensor<2x4x8x8xbf16> -> tensor<2x16x64xbf16>
  return
}

