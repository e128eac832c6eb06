

func.func @modulate_element_type(%x: tensor<2x16x64xbf16>, %s: tensor<2x64xf32>) {
  // expected-error @+1 {{'loom.modulate' op expects shift to have the input's element type}}
  %0 = loom.modulate %x, %s, %s : tensor<2x16x64xbf16>, tensor<2x64xf32>
  return
}

