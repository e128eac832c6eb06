

// Heads split over the block's 4 columns: 6 do not (over 2 columns, of
// a 4 x 2 block, they would).
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
  func.func @heads(%x: tensor<1x8x384xbf16>) -> tensor<1x8x384xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x8x384xbf16>) -> tensor<1x8x384xbf16> {
    ^bb0(%in: tensor<1x8x384xbf16>):
      %q = loom.linear q %in : tensor<1x8x384xbf16> -> tensor<1x8x384xbf16>
      // expected-error @+1 {{cannot split heads and d_ff 4 ways (tp_y of 2 x 4): 6 attention heads are not divisible by tp = 4; valid tp_x x tp_y factorizations: 4 x 2}}
      %a = loom.attention %q, %q, %q {heads = 6, kv_heads = 6, head_dim = 64, causal} : tensor<1x8x384xbf16>, tensor<1x8x384xbf16> -> tensor<1x8x384xbf16>
      %o = loom.linear o %a : tensor<1x8x384xbf16> -> tensor<1x8x384xbf16>
      loom.yield %o : tensor<1x8x384xbf16>
    }
    return %y : tensor<1x8x384xbf16>
  }
}

