

// Shape arithmetic in the verifiers saturates too: no wrapped product may
// match a real size.
func.func @heads_wrap(%q: tensor<1x8x4294967296xbf16>) {
  // expected-error @+1 {{'loom.attention' op heads * head_dim (4294967297 * 4294967296 = 2^63 or more) does not match q's hidden size 4294967296}}
  %0 = loom.attention %q, %q, %q {heads = 4294967297, kv_heads = 4294967297, head_dim = 4294967296} : tensor<1x8x4294967296xbf16>, tensor<1x8x4294967296xbf16> -> tensor<1x8x4294967296xbf16>
  return
}

