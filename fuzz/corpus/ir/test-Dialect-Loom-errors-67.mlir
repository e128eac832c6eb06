

func.func @reshape_element_type(%x: tensor<2x6x64xbf16>) {
  // expected-error @+1 {{'loom.reshape' op cannot reshape 'tensor<2x6x64xbf16>' to 'tensor<2x384xf32>': element count or type differs}}
  %0 = loom.reshape %x : tensor<2x6x64xbf16> -> tensor<2x384xf32>
  return
}

