

// Two stages need two layers.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  // expected-error @+1 {{2 stages need at least 2 layers; the model has 1}}
  func.func @one(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      %h = loom.linear up %in : tensor<1x8x16xbf16> -> tensor<1x8x16xbf16>
      loom.yield %h : tensor<1x8x16xbf16>
    }
    return %a : tensor<1x8x16xbf16>
  }
}

