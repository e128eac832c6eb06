

// The row's sequence must split: 6 tokens do not split over a 2 x 4
// block's rows of 4, but do over a 4 x 2 block's rows of 2.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
  func.func @seq(%x: tensor<1x6x128xbf16>) -> tensor<1x6x128xbf16> {
    // expected-error @+1 {{cannot split heads and d_ff 4 ways (tp_y of 2 x 4): sequence parallelism splits the sequence of 6 tokens, which is not divisible by tp = 4; valid tp_x x tp_y factorizations: 4 x 2}}
    %y = loom.layer 0 (%x) : (tensor<1x6x128xbf16>) -> tensor<1x6x128xbf16> {
    ^bb0(%in: tensor<1x6x128xbf16>):
      %n = loom.rms_norm %in : tensor<1x6x128xbf16>
      %u = loom.linear up %n : tensor<1x6x128xbf16> -> tensor<1x6x256xbf16>
      %a = loom.activation gelu %u : tensor<1x6x256xbf16>
      %d = loom.linear down %a : tensor<1x6x256xbf16> -> tensor<1x6x128xbf16>
      %r = loom.add %in, %d : tensor<1x6x128xbf16>, tensor<1x6x128xbf16>
      loom.yield %r : tensor<1x6x128xbf16>
    }
    return %y : tensor<1x6x128xbf16>
  }
}
