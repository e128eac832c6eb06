

func.func @one(%a: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.combined_all_reduce' op expects two or more operands and a result for each, got 1 and 1}}
  %r = loom.combined_all_reduce %a {group = "tp_x", group_size = 2} : (tensor<1x8x64xbf16>) -> (tensor<1x8x64xbf16>)
  return
}

