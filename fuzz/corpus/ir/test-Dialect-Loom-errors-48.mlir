

func.func @add_element_type(%x: tensor<2x8x64xbf16>, %b: tensor<64xf32>) {
  // expected-error @+1 {{'loom.add' op expects operands of the same element type, got 'tensor<2x8x64xbf16>' and 'tensor<64xf32>'}}
  %0 = loom.add %x, %b : tensor<2x8x64xbf16>, tensor<64xf32>
  return
}

