

func.func @gathered(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  %0 = loom.layer 0 (%x) : (tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x64xbf16>):
    // expected-error @+1 {{cannot be differentiated: a weight-gathered layer is not trained (plan training with tp-layout 1d or 2d)}}
    loom.gather_weights {bytes = 8192 : i64, group = "tp", group_size = 2 : i64}
    %o = loom.linear o %in : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    loom.yield %o : tensor<1x16x64xbf16>
  }
  return %0 : tensor<1x16x64xbf16>
}

