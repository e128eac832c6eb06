// Verifier rules of the precision attributes (run by precision.mlir).

func.func @int8_matmul_needs_int8_weights(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.linear' op computes int8 x int8 (compute_type = i8) but its weights are not int8 (weight_type = i8)}}
  %0 = loom.linear q %x {compute_type = i8} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

// -----

func.func @weights_f32(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.linear' op expects weight_type i8 or bf16, got 'f32'}}
  %0 = loom.linear q %x {weight_type = f32} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

// -----

func.func @kv_without_cache(%q: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.attention' op has a KV cache type but no KV cache (only a causal attention keeps one)}}
  %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16, kv_type = i8} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}
