

// F3 (shared/repro/sequence-parallel-tokens-overflow.mlir): tokens x tp
// saturates instead of wrapping to 0, which skipped the check.
module attributes {loom.parallel = #loom.parallel<tp = 4611686018427387904, sequence_parallel = true>} {
  // expected-error @+1 {{the slices add up to 16 tokens but the layers see 9223372036854775807}}
  func.func @f(%x: tensor<1x8x64xbf16>) attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [16]>} {
    %0 = loom.layer 0(%x) {kind = "llama", stage = 0 : i64} : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    ^bb0(%h: tensor<1x8x64xbf16>):
      loom.yield %h : tensor<1x8x64xbf16>
    }
    return
  }
}

