

func.func @chunk_uneven(%x: tensor<2x384xbf16>) {
  // expected-error @+1 {{'loom.chunk' op cannot split [2, 384] into 5 equal pieces}}
  %0:5 = loom.chunk %x : tensor<2x384xbf16> -> tensor<2x76xbf16>, tensor<2x76xbf16>, tensor<2x76xbf16>, tensor<2x76xbf16>, tensor<2x76xbf16>
  return
}

