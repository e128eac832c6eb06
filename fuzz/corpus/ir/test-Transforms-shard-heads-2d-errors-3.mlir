

// Ops the 2-D layout does not split (a concatenation in a layer).
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
  func.func @concat(%x: tensor<1x8x128xbf16>) -> tensor<1x8x128xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x8x128xbf16>) -> tensor<1x8x128xbf16> {
    ^bb0(%in: tensor<1x8x128xbf16>):
      %u = loom.linear up %in : tensor<1x8x128xbf16> -> tensor<1x8x64xbf16>
      // expected-error @+1 {{cannot split d_model 2 ways (tp_x of 2 x 4): 2-D weight-stationary tensor parallelism splits the projections, norms and attention of decoder layers; it does not split 'loom.concat'; valid tp_x x tp_y factorizations: none}}
      %c = loom.concat %u, %u {dim = 2} : (tensor<1x8x64xbf16>, tensor<1x8x64xbf16>) -> tensor<1x8x128xbf16>
      %d = loom.linear down %c : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
      loom.yield %d : tensor<1x8x128xbf16>
    }
    return %y : tensor<1x8x128xbf16>
  }
}
