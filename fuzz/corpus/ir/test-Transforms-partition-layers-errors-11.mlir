

// On several slices joined by the DCN a replica lies within one slice or
// spans whole slices, a number dividing the slices (the rest data-parallel
// over the DCN): tp 16 x 2 stages would span 2 of 3 v5e-16 slices.
// expected-error @+1 {{tensor-parallel 16 x stages 2 = 32 chips per replica does not tile 3xv5e-16: a replica lies within a slice of 16 chips and divides it, or spans whole slices with an equal run of stages on each, their number dividing the 3 slices; stage counts that do with tp 16: 1, 3}}
module attributes {loom.parallel = #loom.parallel<tp = 16>, loom.target = #loom.target<"tpu-v5e", topology = "3xv5e-16">} {
  func.func @dcn(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
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
