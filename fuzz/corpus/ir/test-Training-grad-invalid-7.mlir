

func.func @both(%x: tensor<1x16x64xbf16>, %dy: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  %0 = loom.layer_grad 0 (%x, %dy) : (tensor<1x16x64xbf16>, tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x64xbf16>, %d: tensor<1x16x64xbf16>):
    // expected-error @+1 {{is both kept and recomputed}}
    %y = loom.linear o %in {loom.kept, loom.recompute} : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    loom.yield %d : tensor<1x16x64xbf16>
  }
  return %0 : tensor<1x16x64xbf16>
}

