

func.func @slice_other_dim(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.slice' op expects the result to differ from the input only in dimension 2}}
  %0 = loom.slice %x {dim = 2, offset = 0} : tensor<1x8x64xbf16> -> tensor<1x4x32xbf16>
  return
}

