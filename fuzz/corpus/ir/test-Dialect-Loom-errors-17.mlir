

func.func @linear_element_type(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.linear' op expects input and result of the same element type}}
  %0 = loom.linear up %x : tensor<1x8x64xbf16> -> tensor<1x8x128xf32>
  return
}

