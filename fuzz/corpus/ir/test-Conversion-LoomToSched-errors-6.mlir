

// tp 2 x 2 stages x 2 replicas = 8 chips, but v5e-4 has 4.
// expected-error @+1 {{tensor-parallel 2 x stages 2 x data-parallel 2 does not lay out on v5e-4 (4 chips): replicas of tp x stages chips must tile it}}
module attributes {loom.parallel = #loom.parallel<tp = 2, dp = 2>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @replicas(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [8]>} {
    %a = loom.layer 0 (%x) {stage = 0} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    %b = loom.layer 1 (%a) {stage = 1} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %b : tensor<1x8x16xbf16>
  }
}

