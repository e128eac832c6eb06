

func.func @patchify_integer_result(%x: tensor<2x4x8x8xbf16>) {
  // expected-error @+1 {{'loom.patchify' op expects the result to have a floating-point element type, got 'tensor<2x16x64xi32>'}}
  %0 = loom.patchify %x {patch_size = 2} : tensor<2x4x8x8xbf16> -> tensor<2x16x64xi32>
  return
}

