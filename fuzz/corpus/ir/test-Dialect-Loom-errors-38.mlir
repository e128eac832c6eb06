

func.func @rms_norm_zero_group(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{attribute 'group' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = loom.rms_norm %x {group = 0} : tensor<1x8x64xbf16>
  return
}

