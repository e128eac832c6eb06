

// A hand-written dp whose chip count passes 64 bits saturates rather than
// wrapping to a count that fits (F2).
// expected-error @+1 {{tensor-parallel 2 x stages 1 x data-parallel 4611686018427387904 does not lay out on v5e-4 (4 chips): replicas of tp x stages chips must tile it}}
module attributes {loom.parallel = #loom.parallel<tp = 2, dp = 4611686018427387904>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @huge_dp(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %a : tensor<1x8x16xbf16>
  }
}

