

func.func @add_result_type(%x: tensor<2x8x64xbf16>) {
  // expected-error @+1 {{'loom.add' op failed to verify that all of {lhs, result} have same type}}
  %0 = "loom.add"(%x, %x) : (tensor<2x8x64xbf16>, tensor<2x8x64xbf16>) -> tensor<2x8x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// loom.modulate / loom.gate
//===----------------------------------------------------------------------===//

