

func.func @modulate_input_rank(%x: tensor<2x64xbf16>, %s: tensor<2x64xbf16>) {
  // expected-error @+1 {{'loom.modulate' op expects input of rank 3 [batch, seq, hidden], got [2, 64]}}
  %0 = loom.modulate %x, %s, %s : tensor<2x64xbf16>, tensor<2x64xbf16>
  return
}

