

func.func @chunk_shape(%x: tensor<2x384xbf16>) {
  // expected-error @+1 {{'loom.chunk' op expects results of shape [2, 192], got [2, 128]}}
  %0:2 = loom.chunk %x : tensor<2x384xbf16> -> tensor<2x128xbf16>, tensor<2x128xbf16>
  return
}

