

func.func @f(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.time_us' must be a finite, non-negative time}}
  %0 = loom.layer 0(%x) {kind = "llama", loom.time_us = -1.0 : f64} : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
  ^bb0(%h: tensor<1x8x64xbf16>):
    loom.yield %h : tensor<1x8x64xbf16>
  }
  return
}

