

func.func @all_gather_dim_range(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.all_gather' op dim 3 is out of range for rank 3}}
  %0 = loom.all_gather %x {group = "tp", group_size = 2, dim = 3} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

