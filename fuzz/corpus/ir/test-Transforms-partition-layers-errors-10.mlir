

// loom-shard-heads takes any degree the heads divide; 3 does not divide
// v5e-16's 16 chips, so no stage count lays it out.
// expected-error @+1 {{tensor-parallel 3 x stages 2 = 6 chips per replica does not divide v5e-16's 16, which replicas tile; no stage count does with tp 3, which does not divide 16}}
module attributes {loom.parallel = #loom.parallel<tp = 3>, loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
  func.func @tp3(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    %b = loom.layer 1 (%a) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %b : tensor<1x8x16xbf16>
  }
}

