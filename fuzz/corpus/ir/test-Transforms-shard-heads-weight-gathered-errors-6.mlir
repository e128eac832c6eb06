

// A combine whose dispatch buffer arrives from outside the layer is one too.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
  func.func @combine(%x: tensor<4x8x64xbf16>, %rows: tensor<1x64x64xbf16>) -> tensor<4x8x64xbf16> {
    %y = loom.layer 0 (%x, %rows) : (tensor<4x8x64xbf16>, tensor<1x64x64xbf16>) -> tensor<4x8x64xbf16> {
    ^bb0(%in: tensor<4x8x64xbf16>, %buf: tensor<1x64x64xbf16>):
      // expected-error @+1 {{weight-gathered gathers dense layers' weights; MoE layers are not split this way (use tp or ep)}}
      %c = loom.moe_combine %buf : tensor<1x64x64xbf16> -> tensor<4x8x64xbf16>
      %r = loom.add %in, %c : tensor<4x8x64xbf16>, tensor<4x8x64xbf16>
      loom.yield %r : tensor<4x8x64xbf16>
    }
    return %y : tensor<4x8x64xbf16>
  }
}
