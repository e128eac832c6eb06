

func.func @offloaded_not_kept(%x: tensor<1x16x64xbf16>, %dy: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  %0 = loom.layer_grad 0 (%x, %dy) : (tensor<1x16x64xbf16>, tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x64xbf16>, %d: tensor<1x16x64xbf16>):
    // expected-error @+1 {{is offloaded but not kept (loom.offloaded goes with loom.kept)}}
    %y = loom.linear o %in {loom.recompute, loom.offloaded} : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    loom.yield %d : tensor<1x16x64xbf16>
  }
  return %0 : tensor<1x16x64xbf16>
}

