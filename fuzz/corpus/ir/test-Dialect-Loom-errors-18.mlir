

func.func @linear_integer(%x: tensor<1x8x64xi8>) {
  // expected-error @+1 {{'loom.linear' op expects the input to have a floating-point element type, got 'tensor<1x8x64xi8>'}}
  %0 = loom.linear down %x : tensor<1x8x64xi8> -> tensor<1x8x32xi8>
  return
}

