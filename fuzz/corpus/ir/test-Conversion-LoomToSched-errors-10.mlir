

// Nor does a stage with no layers (the lowering sends a stage's last
// layer's results on).
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  // expected-error @+1 {{'loom.pipeline' has 2 stages but the layers use 1}}
  func.func @empty_stage(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [8]>} {
    %a = loom.layer 0 (%x) {stage = 0} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %a : tensor<1x8x16xbf16>
  }
}

