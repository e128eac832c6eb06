

func.func @combine_hidden(%b: tensor<1x32x64xbf16>) {
  // expected-error @+1 {{'loom.moe_combine' op expects rows of the result's hidden size and element type}}
  %y = loom.moe_combine %b : tensor<1x32x64xbf16> -> tensor<1x16x32xbf16>
  return
}

