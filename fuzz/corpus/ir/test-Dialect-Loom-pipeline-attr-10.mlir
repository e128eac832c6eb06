

// ...and TeraPipe's slices need it to be causal.
// expected-error @+1 {{'loom.pipeline' cuts token slices (TeraPipe), but no attention of the model is causal; a DiT takes patches (PipeFusion)}}
func.func @slices_full(%q: tensor<1x8x64xbf16>)
    attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [4, 4]>} {
  %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

