

// Replicas of tp x stages chips must tile the topology: 3 chips do not
// tile v5e-4's 4.
// expected-error @+1 {{tensor-parallel 3 x stages 1 x data-parallel 1 does not lay out on v5e-4 (4 chips): replicas of tp x stages chips must tile it}}
module attributes {loom.parallel = #loom.parallel<tp = 3>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @three(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %a : tensor<1x8x16xbf16>
  }
}

