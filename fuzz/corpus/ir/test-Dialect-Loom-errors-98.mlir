

func.func @all_reduce_with_dim(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.all_reduce' op takes no 'dim' attribute}}
  %0 = loom.all_reduce %x {group = "tp", group_size = 4, dim = 2} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

