

func.func @gate_rank(%x: tensor<2x16x64xbf16>, %g: tensor<64xbf16>) {
  // expected-error @+1 {{'loom.gate' op expects gate of rank 2 [batch, hidden], got [64]}}
  %0 = loom.gate %x, %g : tensor<2x16x64xbf16>, tensor<64xbf16>
  return
}

