

func.func @position_embed_too_long(%x: tensor<1x16x64xf32>) {
  // expected-error @+1 {{'loom.position_embed' op sequence length 16 exceeds max_positions 8}}
  %0 = loom.position_embed %x {max_positions = 8} : tensor<1x16x64xf32>
  return
}

