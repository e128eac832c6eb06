

func.func @reshape_count(%x: tensor<2x6x64xbf16>) {
  // expected-error @+1 {{'loom.reshape' op cannot reshape 'tensor<2x6x64xbf16>' to 'tensor<2x380xbf16>': element count or type differs}}
  %0 = loom.reshape %x : tensor<2x6x64xbf16> -> tensor<2x380xbf16>
  return
}

