

// With tp = 4, two stages need 8 chips; v5e-4 has 4.
// expected-error @+1 {{tensor-parallel 4 x stages 2 x data-parallel 1 = 8 chips, but v5e-4 has 4}}
module attributes {loom.parallel = #loom.parallel<tp = 4>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @wide(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
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

