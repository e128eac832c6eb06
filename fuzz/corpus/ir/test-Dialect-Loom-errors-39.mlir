

func.func @rms_norm_type(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.rms_norm' op requires the same type for all operands and results}}
  %0 = "loom.rms_norm"(%x) : (tensor<1x8x64xbf16>) -> tensor<1x8x64xf32>
  return
}

