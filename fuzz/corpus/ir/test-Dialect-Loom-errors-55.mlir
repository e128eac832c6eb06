

func.func @gate_shape(%x: tensor<2x16x64xbf16>, %g: tensor<1x64xbf16>) {
  // expected-error @+1 {{'loom.gate' op expects gate of shape [2, 64] (batch, hidden of the input), got [1, 64]}}
  %0 = loom.gate %x, %g : tensor<2x16x64xbf16>, tensor<1x64xbf16>
  return
}

