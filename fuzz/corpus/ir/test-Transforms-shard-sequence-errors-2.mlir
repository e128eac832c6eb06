

// Ulysses splits MMDiT joint attention's heads too: four do not split three
// ways (96 image tokens do; the 8 text tokens need not, they can stay whole).
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @joint(%img: tensor<1x96x256xbf16>, %txt: tensor<1x8x256xbf16>) -> tensor<1x96x256xbf16> {
    %y:2 = loom.layer 0 (%img, %txt) : (tensor<1x96x256xbf16>, tensor<1x8x256xbf16>) -> (tensor<1x96x256xbf16>, tensor<1x8x256xbf16>) {
    ^bb0(%i: tensor<1x96x256xbf16>, %t: tensor<1x8x256xbf16>):
      // expected-error @+1 {{cannot split the sequence 3 ways: sp = 3 does not divide the 4 heads and 4 KV heads this attention holds per chip; valid sequence-parallel degrees on v5e-4 with tp = 1: 1, 2, 4}}
      %a:2 = loom.joint_attention %i, %i, %i, %t, %t, %t {heads = 4, head_dim = 64} : tensor<1x96x256xbf16>, tensor<1x8x256xbf16>
      loom.yield %a#0, %a#1 : tensor<1x96x256xbf16>, tensor<1x8x256xbf16>
    }
    return %y#0 : tensor<1x96x256xbf16>
  }
}

