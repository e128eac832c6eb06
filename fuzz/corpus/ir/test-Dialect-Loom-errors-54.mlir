

func.func @modulate_shift_scale(%x: tensor<2x16x64xbf16>, %s: tensor<2x64xbf16>, %c: tensor<2x64xf32>) {
  // expected-error @+1 {{'loom.modulate' op failed to verify that all of {shift, scale} have same type}}
  %0 = "loom.modulate"(%x, %s, %c) : (tensor<2x16x64xbf16>, tensor<2x64xbf16>, tensor<2x64xf32>) -> tensor<2x16x64xbf16>
  return
}

