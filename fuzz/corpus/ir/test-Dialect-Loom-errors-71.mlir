

func.func @chunk_scalar(%x: tensor<bf16>) {
  // expected-error @+1 {{'loom.chunk' op cannot split [] into 2 equal pieces}}
  %0:2 = loom.chunk %x : tensor<bf16> -> tensor<bf16>, tensor<bf16>
  return
}

