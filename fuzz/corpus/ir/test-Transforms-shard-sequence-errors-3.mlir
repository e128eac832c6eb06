

// After loom-partition-layers the stages are laid out for tp chips: too late.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  // expected-error @+1 {{loom-shard-sequence runs before loom-partition-layers (the stages are laid out for tp x sp chips)}}
  func.func @late(%x: tensor<1x96x256xbf16>) -> tensor<1x96x256xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [96]>} {
    %y = loom.layer 0 (%x) {stage = 0} : (tensor<1x96x256xbf16>) -> tensor<1x96x256xbf16> {
    ^bb0(%in: tensor<1x96x256xbf16>):
      %a = loom.attention %in, %in, %in {heads = 4, kv_heads = 4, head_dim = 64} : tensor<1x96x256xbf16>, tensor<1x96x256xbf16> -> tensor<1x96x256xbf16>
      loom.yield %a : tensor<1x96x256xbf16>
    }
    return %y : tensor<1x96x256xbf16>
  }
}

