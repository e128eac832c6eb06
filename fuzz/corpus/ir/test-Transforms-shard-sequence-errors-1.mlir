

// 64 tokens do not split three ways; twelve heads would. Valid: the divisors
// of 64 that divide 12 and fit on 4 chips.
// expected-error @+1 {{cannot split the sequence 3 ways: sp = 3 does not divide the 64 tokens each layer sees; valid sequence-parallel degrees on v5e-4 with tp = 1: 1, 2, 4}}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @tokens(%x: tensor<1x64x768xbf16>) -> tensor<1x64x768xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x64x768xbf16>) -> tensor<1x64x768xbf16> {
    ^bb0(%in: tensor<1x64x768xbf16>):
      %q = loom.linear q %in : tensor<1x64x768xbf16> -> tensor<1x64x768xbf16>
      %a = loom.attention %q, %q, %q {heads = 12, kv_heads = 12, head_dim = 64} : tensor<1x64x768xbf16>, tensor<1x64x768xbf16> -> tensor<1x64x768xbf16>
      loom.yield %a : tensor<1x64x768xbf16>
    }
    return %y : tensor<1x64x768xbf16>
  }
}

