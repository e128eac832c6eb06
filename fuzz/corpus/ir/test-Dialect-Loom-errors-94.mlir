

func.func @all_gather_size(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.all_gather' op expects a result of shape [1, 16, 64], got [1, 8, 128]}}
  %0 = loom.all_gather %x {group = "sp", group_size = 2, dim = 1} : tensor<1x8x64xbf16> -> tensor<1x8x128xbf16>
  return
}

