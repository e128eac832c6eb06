

// F1 (shared/repro/stage-without-pipeline.mlir): a stage means a place in
// the function's pipeline; the lowering indexed stages that did not exist.
func.func @f(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.layer' op is on stage 1, but its function has no 'loom.pipeline' (loom-partition-layers sets both)}}
  %0 = loom.layer 0(%x) {kind = "llama", stage = 1 : i64} : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
  ^bb0(%h: tensor<1x8x64xbf16>):
    loom.yield %h : tensor<1x8x64xbf16>
  }
  return
}

