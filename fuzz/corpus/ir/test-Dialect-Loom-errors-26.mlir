

func.func @unpatchify_input_rank(%x: tensor<32x32xbf16>) {
  // expected-error @+1 {{'loom.unpatchify' op expects input of rank 3 [batch, patches, p*p*channels], got [32, 32]}}
  %0 = loom.unpatchify %x {patch_size = 2} : tensor<32x32xbf16> -> tensor<2x8x8x8xbf16>
  return
}

