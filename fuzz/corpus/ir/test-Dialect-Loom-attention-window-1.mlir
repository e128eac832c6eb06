

module {
  func.func @local_decode(%q: tensor<1x1x64xbf16>, %k: tensor<1x1x32xbf16>) -> tensor<1x1x64xbf16> {
    %0 = loom.attention %q, %k, %k {heads = 4, kv_heads = 2, head_dim = 16, causal, cached = 100, window = 4} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16> -> tensor<1x1x64xbf16>
    return %0 : tensor<1x1x64xbf16>
  }
}
// One query after 100 cached tokens sees 4 keys: 4 * 4 * 16 * 4 = 1024
// FLOPs; the cache holds 4 tokens, 512 B.
// COST: total {{.*}} 1.02 k {{.*}} 512 B
