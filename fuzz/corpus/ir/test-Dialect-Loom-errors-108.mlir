

func.func @slice_offset_overflow(%x: tensor<4xf32>) {
  // expected-error @+1 {{is out of bounds for size 4}}
  %0 = loom.slice %x {dim = 0, offset = 9223372036854775807} : tensor<4xf32> -> tensor<1xf32>
  return
}

