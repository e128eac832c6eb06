

// HBM forces the slower cut. Four equal layers of one 32768 x 32768 linear
// (2.147 GB of weights; 2148532224 B moved over 8 tokens -> 2914.133 us
// each) after an embedding table of 196608 x 32768 (12.885 GB) that pins
// stage 0's memory but costs next to no time (it reads only the 8 rows it
// looks up). The fastest cut, 2 | 2 layers (5.83 ms), needs 12.885 + 2 x
// 2.147 = 17.18 GB on stage 0, more than a v5e chip's 16 GB; so layer 0
// stands alone (15.03 GB with its 524 kB of results) and stage 1 takes
// three layers: 8.742 ms.
// CHECK-LABEL: func.func @big_table
// CHECK: loom.layer 0({{.*}}) {stage = 0 : i64}
// CHECK: loom.layer 1({{.*}}) {stage = 1 : i64}
// CHECK: loom.layer 3({{.*}}) {stage = 1 : i64}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  // expected-remark @+1 {{2 stages on v5e-4; slowest stage 8.742 ms; stage 0: layers 0-0, 2.916 ms, 15.03 GB; stage 1: layers 1-3, 8.742 ms, 6.44 GB}}
  func.func @big_table(%ids: tensor<1x8xi32>) -> tensor<1x8x32768xbf16> {
    %x = loom.embed %ids {vocab = 196608} : tensor<1x8xi32> -> tensor<1x8x32768xbf16>
    %0 = loom.layer 0 (%x) : (tensor<1x8x32768xbf16>) -> tensor<1x8x32768xbf16> {
    ^bb0(%in: tensor<1x8x32768xbf16>):
      %o = loom.linear o %in : tensor<1x8x32768xbf16> -> tensor<1x8x32768xbf16>
      loom.yield %o : tensor<1x8x32768xbf16>
    }
    %1 = loom.layer 1 (%0) : (tensor<1x8x32768xbf16>) -> tensor<1x8x32768xbf16> {
    ^bb0(%in: tensor<1x8x32768xbf16>):
      %o = loom.linear o %in : tensor<1x8x32768xbf16> -> tensor<1x8x32768xbf16>
      loom.yield %o : tensor<1x8x32768xbf16>
    }
    %2 = loom.layer 2 (%1) : (tensor<1x8x32768xbf16>) -> tensor<1x8x32768xbf16> {
    ^bb0(%in: tensor<1x8x32768xbf16>):
      %o = loom.linear o %in : tensor<1x8x32768xbf16> -> tensor<1x8x32768xbf16>
      loom.yield %o : tensor<1x8x32768xbf16>
    }
    %3 = loom.layer 3 (%2) : (tensor<1x8x32768xbf16>) -> tensor<1x8x32768xbf16> {
    ^bb0(%in: tensor<1x8x32768xbf16>):
      %o = loom.linear o %in : tensor<1x8x32768xbf16> -> tensor<1x8x32768xbf16>
      loom.yield %o : tensor<1x8x32768xbf16>
    }
    return %3 : tensor<1x8x32768xbf16>
  }
}

