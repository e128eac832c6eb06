

func.func @rms_norm_group(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.rms_norm' op expects group 24 to divide the innermost dimension 64}}
  %0 = loom.rms_norm %x {group = 24} : tensor<1x8x64xbf16>
  return
}

