

func.func @chunk_mixed_types(%x: tensor<2x384xbf16>) {
  // expected-error @+1 {{'loom.chunk' op expects all results of one type}}
  %0:2 = loom.chunk %x : tensor<2x384xbf16> -> tensor<2x192xbf16>, tensor<2x192xf32>
  return
}

