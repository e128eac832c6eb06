

func.func @layer_norm_group(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.layer_norm' op expects group 48 to divide the innermost dimension 64}}
  %0 = loom.layer_norm %x {affine = false, group = 48} : tensor<1x8x64xbf16>
  return
}

