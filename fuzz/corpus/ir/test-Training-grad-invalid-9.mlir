

func.func @offloaded_outside(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{'loom.offloaded' belongs on a forward op in a loom.layer_grad}}
  %y = loom.linear o %x {loom.offloaded} : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %y : tensor<1x16x64xbf16>
}

