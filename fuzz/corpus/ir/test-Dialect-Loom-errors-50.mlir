

func.func @modulate_shape(%x: tensor<2x16x64xbf16>, %s: tensor<2x32xbf16>) {
  // expected-error @+1 {{'loom.modulate' op expects shift of shape [2, 64] (batch, hidden of the input), got [2, 32]}}
  %0 = loom.modulate %x, %s, %s : tensor<2x16x64xbf16>, tensor<2x32xbf16>
  return
}

