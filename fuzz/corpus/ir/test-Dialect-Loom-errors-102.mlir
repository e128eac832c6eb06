

func.func @all_to_all_shape(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.all_to_all' op expects a result of shape [1, 8, 64], got [1, 64, 8]}}
  %0 = loom.all_to_all %x {group = "ep", group_size = 8, dim = 1} : tensor<1x8x64xbf16> -> tensor<1x64x8xbf16>
  return
}

