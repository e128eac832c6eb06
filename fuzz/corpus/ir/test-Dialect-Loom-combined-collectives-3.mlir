

func.func @dim(%a: tensor<1x8x64xbf16>, %b: tensor<1x8x32xbf16>) {
  // expected-error @+1 {{'loom.combined_all_gather' op expects a 'dim' attribute}}
  %g:2 = loom.combined_all_gather %a, %b {group = "tp_x", group_size = 2} : (tensor<1x8x64xbf16>, tensor<1x8x32xbf16>) -> (tensor<1x8x64xbf16>, tensor<1x8x32xbf16>)
  return
}

