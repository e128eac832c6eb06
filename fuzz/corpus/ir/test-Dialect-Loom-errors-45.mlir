

func.func @swiglu_types(%g: tensor<1x8x128xbf16>, %u: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.swiglu' op requires the same type for all operands and results}}
  %0 = "loom.swiglu"(%g, %u) : (tensor<1x8x128xbf16>, tensor<1x8x64xbf16>) -> tensor<1x8x128xbf16>
  return
}

//===----------------------------------------------------------------------===//
// loom.add / loom.mul
//===----------------------------------------------------------------------===//

