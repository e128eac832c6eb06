

func.func @modulate_shift_rank(%x: tensor<2x16x64xbf16>, %s: tensor<2x1x64xbf16>) {
  // expected-error @+1 {{'loom.modulate' op expects shift of rank 2 [batch, hidden], got [2, 1, 64]}}
  %0 = loom.modulate %x, %s, %s : tensor<2x16x64xbf16>, tensor<2x1x64xbf16>
  return
}

