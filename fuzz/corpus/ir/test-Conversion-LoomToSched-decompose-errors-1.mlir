

module attributes {loom.parallel = #loom.parallel<tp = 4, sequence_parallel = true>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @uneven(%x: tensor<1x8x256xbf16>) -> tensor<1x8x256xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [6, 26]>} {
    %a = loom.layer 0 (%x) {stage = 0 : i64} : (tensor<1x8x256xbf16>) -> tensor<1x8x256xbf16> {
    ^bb0(%in: tensor<1x8x256xbf16>):
      // The first collective that decomposes.
      // expected-error @+1 {{convert-loom-to-sched: cannot decompose this collective over 4 chips: slice 0 has 6 tokens, not a multiple of 4 (each chip's rows split into 4 equal blocks, one per ring step)}}
      %g = loom.all_gather %in {group = "tp", group_size = 4 : i64, dim = 1 : i64} : tensor<1x8x256xbf16> -> tensor<1x32x256xbf16>
      %up = loom.linear up %g {loom.split = #loom.split<column, 4>} : tensor<1x32x256xbf16> -> tensor<1x32x128xbf16>
      %d = loom.linear down %up {loom.split = #loom.split<row, 4>} : tensor<1x32x128xbf16> -> tensor<1x32x256xbf16>
      %r = loom.reduce_scatter %d {group = "tp", group_size = 4 : i64, dim = 1 : i64} : tensor<1x32x256xbf16> -> tensor<1x8x256xbf16>
      loom.yield %r : tensor<1x8x256xbf16>
    }
    return %a : tensor<1x8x256xbf16>
  }
}
