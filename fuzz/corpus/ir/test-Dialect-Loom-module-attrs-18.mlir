

// F2 (shared/repro/pipeline-slices-overflow.mlir): slice lengths add up in
// saturating arithmetic instead of wrapping to a negative count.
// expected-error @+1 {{the slices add up to 2^63 or more tokens but the layers see 8}}
func.func @f(%x: tensor<1x8x64xbf16>) attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [9223372036854775807, 9223372036854775807]>} {
  %0 = loom.layer 0(%x) {kind = "llama", stage = 0 : i64} : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
  ^bb0(%h: tensor<1x8x64xbf16>):
    loom.yield %h : tensor<1x8x64xbf16>
  }
  return
}

