

// One cached token short of the limit passes; a layer of three ops of 2^61
// FLOPs each does not.
func.func @cost_layer_sum(%q: tensor<1x1048576x128xbf16>) {
  %ok = loom.attention %q, %q, %q {heads = 1, kv_heads = 1, head_dim = 128, cached = 8588886015} : tensor<1x1048576x128xbf16>, tensor<1x1048576x128xbf16> -> tensor<1x1048576x128xbf16>
  // expected-error @+1 {{'loom.layer' op needs 6917529027641081856 FLOPs}}
  loom.layer 0 (%q) : (tensor<1x1048576x128xbf16>) -> () {
  ^bb0(%x: tensor<1x1048576x128xbf16>):
    %a = loom.attention %x, %x, %x {heads = 1, kv_heads = 1, head_dim = 128, cached = 4293918720} : tensor<1x1048576x128xbf16>, tensor<1x1048576x128xbf16> -> tensor<1x1048576x128xbf16>
    %b = loom.attention %x, %x, %x {heads = 1, kv_heads = 1, head_dim = 128, cached = 4293918720} : tensor<1x1048576x128xbf16>, tensor<1x1048576x128xbf16> -> tensor<1x1048576x128xbf16>
    %c = loom.attention %x, %x, %x {heads = 1, kv_heads = 1, head_dim = 128, cached = 4293918720} : tensor<1x1048576x128xbf16>, tensor<1x1048576x128xbf16> -> tensor<1x1048576x128xbf16>
    loom.yield
  }
  return
}

