

module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  // expected-error @+1 {{loom-split-tokens needs stages: run loom-partition-layers first}}
  func.func @unstaged(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %a : tensor<1x8x16xbf16>
  }
}
