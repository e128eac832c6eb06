

func.func @rope_not_dividing(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.rope' op expects an even head_dim dividing the innermost dimension 64, got head_dim 24}}
  %0 = loom.rope %x {head_dim = 24} : tensor<1x8x64xbf16>
  return
}

//===----------------------------------------------------------------------===//
// loom.activation / loom.swiglu
//===----------------------------------------------------------------------===//

