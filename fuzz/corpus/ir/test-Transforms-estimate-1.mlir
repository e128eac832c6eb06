

// A sharded module's collectives run on its tensor-parallel group, priced
// with the ICI figures (link_bandwidth 45e9 B/s, hop_latency 1 us) and the
// calibration (collective_sync 2.365 us once per collective; a line's links
// at 0.829 of their bandwidth). tp = 2 on v5e-4 (2 x 2, no wraparound): a
// line of 2 chips. An all-gather is sync + (n - 1) hops + (n - 1) / n x
// bytes / (efficiency x bandwidth), an all-reduce two of them with one sync:
//   2 x (2.365 + 1 + 1/2 x 131072 B / (0.829 x 45e9 B/s)) - 2.365
//   = 2 x 5.121762 - 2.365 = 7.878524 us
// CHECK-LABEL: func.func @line_of_two
// CHECK: loom.layer 0(%{{.*}}) {loom.time_us = 7.8785236{{[0-9]*}} : f64}
module attributes {loom.parallel = #loom.parallel<tp = 2>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @line_of_two(%x: tensor<1x256x256xbf16>) -> tensor<1x256x256xbf16> {
    // expected-remark @+1 {{layer 0: 7.9 us on v5e-4 (0% of it MXU-bound work); 0 FLOPs, 262144 bytes moved}}
    %y = loom.layer 0 (%x) : (tensor<1x256x256xbf16>) -> tensor<1x256x256xbf16> {
    ^bb0(%in: tensor<1x256x256xbf16>):
      %r = loom.all_reduce %in {group = "tp", group_size = 2} : tensor<1x256x256xbf16> -> tensor<1x256x256xbf16>
      loom.yield %r : tensor<1x256x256xbf16>
    }
    return %y : tensor<1x256x256xbf16>
  }
}

