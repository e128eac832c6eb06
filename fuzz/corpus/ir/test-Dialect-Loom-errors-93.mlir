

func.func @all_gather_missing_dim(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.all_gather' op expects a 'dim' attribute}}
  %0 = loom.all_gather %x {group = "sp", group_size = 2} : tensor<1x8x64xbf16> -> tensor<1x16x64xbf16>
  return
}

