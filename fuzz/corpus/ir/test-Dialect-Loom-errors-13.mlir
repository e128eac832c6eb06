

func.func @position_embed_rank(%x: tensor<16x64xf32>) {
  // expected-error @+1 {{'loom.position_embed' op expects input of rank 3 [batch, seq, hidden], got [16, 64]}}
  %0 = loom.position_embed %x {max_positions = 32} : tensor<16x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// loom.linear
//===----------------------------------------------------------------------===//

