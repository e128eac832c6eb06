

func.func @slice_out_of_bounds(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.slice' op slice [4, 12) is out of bounds for size 8}}
  %0 = loom.slice %x {dim = 1, offset = 4} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

