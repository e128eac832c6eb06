

// tp = 4 fills v5e-4's 2 x 2 block, a ring: each chip takes in data over
// two links at the ring's 0.9556, and an all-gather has 3 steps:
//   2 x (2.365 + 3 + 3/4 x 131072 B / (2 x 0.9556 x 45e9 B/s)) - 2.365
//   = 2 x 6.508017 - 2.365 = 10.651033 us
// CHECK-LABEL: func.func @ring_of_four
// CHECK: loom.layer 0(%{{.*}}) {loom.time_us = 10.651033{{[0-9]*}} : f64}
module attributes {loom.parallel = #loom.parallel<tp = 4>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @ring_of_four(%x: tensor<1x256x256xbf16>) -> tensor<1x256x256xbf16> {
    // expected-remark @+1 {{layer 0: 10.7 us on v5e-4}}
    %y = loom.layer 0 (%x) : (tensor<1x256x256xbf16>) -> tensor<1x256x256xbf16> {
    ^bb0(%in: tensor<1x256x256xbf16>):
      %r = loom.all_reduce %in {group = "tp", group_size = 4} : tensor<1x256x256xbf16> -> tensor<1x256x256xbf16>
      loom.yield %r : tensor<1x256x256xbf16>
    }
    return %y : tensor<1x256x256xbf16>
  }
}

