

func.func @rope_odd_head_dim(%x: tensor<1x8x60xbf16>) {
  // expected-error @+1 {{'loom.rope' op expects an even head_dim dividing the innermost dimension 60, got head_dim 15}}
  %0 = loom.rope %x {head_dim = 15} : tensor<1x8x60xbf16>
  return
}

