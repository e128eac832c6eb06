// Verifier rules of loom.attention's window (run by attention-window.mlir).

func.func @window_not_causal(%q: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.attention' op a sliding window (window = 4) needs a causal attention: it keeps the latest keys before each query}}
  %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16, window = 4} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

