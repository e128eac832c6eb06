

func.func @concat_dim_range(%t: tensor<1x6x64xbf16>) {
  // expected-error @+1 {{'loom.concat' op dim 3 is out of range for rank 3}}
  %0 = loom.concat %t, %t {dim = 3} : (tensor<1x6x64xbf16>, tensor<1x6x64xbf16>) -> tensor<1x6x128xbf16>
  return
}

