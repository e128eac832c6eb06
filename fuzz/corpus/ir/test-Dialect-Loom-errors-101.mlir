

func.func @all_to_all_missing_dim(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.all_to_all' op expects a 'dim' attribute}}
  %0 = loom.all_to_all %x {group = "ep", group_size = 8} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

