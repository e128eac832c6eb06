

// An unpipelined module is one slice too.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  // expected-error @+1 {{convert-loom-to-sched: interleave 2 needs at least 2 slices to run zipped, but the plan has 1 (split the sequence with loom-split-tokens)}}
  func.func @unpipelined(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      %h = loom.linear up %in : tensor<1x8x16xbf16> -> tensor<1x8x16xbf16>
      loom.yield %h : tensor<1x8x16xbf16>
    }
    return %a : tensor<1x8x16xbf16>
  }
}
