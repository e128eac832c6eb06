

func.func @gate_element_type(%x: tensor<2x16x64xbf16>, %g: tensor<2x64xf16>) {
  // expected-error @+1 {{'loom.gate' op expects gate to have the input's element type}}
  %0 = loom.gate %x, %g : tensor<2x16x64xbf16>, tensor<2x64xf16>
  return
}

//===----------------------------------------------------------------------===//
// loom.concat / loom.slice / loom.reshape / loom.chunk
//===----------------------------------------------------------------------===//

