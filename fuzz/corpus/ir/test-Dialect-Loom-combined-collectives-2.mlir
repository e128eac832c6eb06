

func.func @shape(%a: tensor<1x8x64xbf16>, %b: tensor<1x8x32xbf16>) {
  // expected-error @+1 {{'loom.combined_reduce_scatter' op expects a result of shape [1, 8, 16], got [1, 8, 32]}}
  %s:2 = loom.combined_reduce_scatter %a, %b {dim = 2, group = "tp_x", group_size = 2} : (tensor<1x8x64xbf16>, tensor<1x8x32xbf16>) -> (tensor<1x8x32xbf16>, tensor<1x8x32xbf16>)
  return
}

