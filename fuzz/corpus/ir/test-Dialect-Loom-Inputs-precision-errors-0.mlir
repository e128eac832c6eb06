// Verifier rules of the precision attributes (run by precision.mlir).

func.func @int8_matmul_needs_int8_weights(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.linear' op computes int8 x int8 (compute_type = i8) but its weights are not int8 (weight_type = i8)}}
  %0 = loom.linear q %x {compute_type = i8} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

