

// The mode must suit the attention: PipeFusion's patches attend to every
// token, so a causal model cannot take them...
// expected-error @+1 {{'loom.pipeline' cuts patches (PipeFusion), but the model's attention is causal; causal models take token slices (TeraPipe)}}
func.func @patches_causal(%q: tensor<1x8x64xbf16>)
    attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [4, 4], patches, steps = 2>} {
  %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16, causal} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

