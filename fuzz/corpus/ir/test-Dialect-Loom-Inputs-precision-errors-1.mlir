

func.func @weights_f32(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.linear' op expects weight_type i8 or bf16, got 'f32'}}
  %0 = loom.linear q %x {weight_type = f32} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

