

func.func @reshape_wrap(%x: tensor<4294967296x4294967297xbf16>) {
  // expected-error @+1 {{'loom.reshape' op cannot reshape 'tensor<4294967296x4294967297xbf16>' to 'tensor<4294967296xbf16>': element count or type differs}}
  %0 = loom.reshape %x : tensor<4294967296x4294967297xbf16> -> tensor<4294967296xbf16>
  return
}

