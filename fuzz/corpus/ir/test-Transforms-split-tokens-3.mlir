

// A decode step has one new token: one slice.
// CHECK-LABEL: func.func @decode
// CHECK-SAME: loom.pipeline = #loom.pipeline<stages = 2, slices = [1]>
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  func.func @decode(%x: tensor<1x1x128xbf16>) -> tensor<1x1x128xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [1]>} {
    %0 = loom.layer 0 (%x) {stage = 0} : (tensor<1x1x128xbf16>) -> tensor<1x1x128xbf16> {
    ^bb0(%in: tensor<1x1x128xbf16>):
      %a = loom.attention %in, %in, %in {heads = 2, kv_heads = 2, head_dim = 64, causal, cached = 255} : tensor<1x1x128xbf16>, tensor<1x1x128xbf16> -> tensor<1x1x128xbf16>
      loom.yield %a : tensor<1x1x128xbf16>
    }
    %1 = loom.layer 1 (%0) {stage = 1} : (tensor<1x1x128xbf16>) -> tensor<1x1x128xbf16> {
    ^bb0(%in: tensor<1x1x128xbf16>):
      %a = loom.attention %in, %in, %in {heads = 2, kv_heads = 2, head_dim = 64, causal, cached = 255} : tensor<1x1x128xbf16>, tensor<1x1x128xbf16> -> tensor<1x1x128xbf16>
      loom.yield %a : tensor<1x1x128xbf16>
    }
    return %1 : tensor<1x1x128xbf16>
  }
}

