

func.func @exchange(%a: tensor<1x8x64xbf16>, %b: tensor<1x8x32xbf16>) {
  // expected-error @+1 {{'loom.combined_all_to_all' op expects a result of shape [1, 16, 16], got [1, 8, 16]}}
  %x:2 = loom.combined_all_to_all %a, %b {dim = 2, concat_dim = 1, group = "sp", group_size = 2} : (tensor<1x8x64xbf16>, tensor<1x8x32xbf16>) -> (tensor<1x16x32xbf16>, tensor<1x8x16xbf16>)
  return
}
