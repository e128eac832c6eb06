// A causal model of two layers (q projection, causal attention of 4 heads
// of 32, o projection; hidden 128) over 256 tokens, cut into 2 stages on
// v5e-4: what loom-partition-layers leaves for loom-split-tokens. The
// slices it gets are worked by hand in ../split-tokens.mlir.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  func.func @causal(%x: tensor<1x256x128xbf16>) -> tensor<1x256x128xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [256]>} {
    %0 = loom.layer 0 (%x) {stage = 0} : (tensor<1x256x128xbf16>) -> tensor<1x256x128xbf16> {
    ^bb0(%in: tensor<1x256x128xbf16>):
      %q = loom.linear q %in : tensor<1x256x128xbf16> -> tensor<1x256x128xbf16>
      %a = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 32, causal} : tensor<1x256x128xbf16>, tensor<1x256x128xbf16> -> tensor<1x256x128xbf16>
      %o = loom.linear o %a : tensor<1x256x128xbf16> -> tensor<1x256x128xbf16>
      loom.yield %o : tensor<1x256x128xbf16>
    }
    %1 = loom.layer 1 (%0) {stage = 1} : (tensor<1x256x128xbf16>) -> tensor<1x256x128xbf16> {
    ^bb0(%in: tensor<1x256x128xbf16>):
      %q = loom.linear q %in : tensor<1x256x128xbf16> -> tensor<1x256x128xbf16>
      %a = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 32, causal} : tensor<1x256x128xbf16>, tensor<1x256x128xbf16> -> tensor<1x256x128xbf16>
      %o = loom.linear o %a : tensor<1x256x128xbf16> -> tensor<1x256x128xbf16>
      loom.yield %o : tensor<1x256x128xbf16>
    }
    return %1 : tensor<1x256x128xbf16>
  }
}
