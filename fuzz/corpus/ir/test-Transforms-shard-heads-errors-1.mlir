

// Twelve query heads split four ways, but six KV heads neither split nor
// replicate evenly.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
  func.func @kv(%q: tensor<1x8x768xbf16>, %k: tensor<1x8x384xbf16>) -> tensor<1x8x768xbf16> {
    // expected-error @+1 {{cannot split 4 ways: 6 KV heads can be neither split nor replicated evenly over tp = 4; valid tensor-parallel degrees on v5e-16: 1, 2}}
    %a = loom.attention %q, %k, %k {heads = 12, kv_heads = 6, head_dim = 64, causal} : tensor<1x8x768xbf16>, tensor<1x8x384xbf16> -> tensor<1x8x768xbf16>
    return %a : tensor<1x8x768xbf16>
  }
}

