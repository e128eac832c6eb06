

func.func @chunk_no_results(%x: tensor<2x384xbf16>) {
  // expected-error @+1 {{'loom.chunk' op expects at least one result}}
  "loom.chunk"(%x) : (tensor<2x384xbf16>) -> ()
  return
}

//===----------------------------------------------------------------------===//
// loom.attention
//===----------------------------------------------------------------------===//

