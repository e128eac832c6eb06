

// Four equal layers and an LM head after them: the head runs on the last
// stage (lm_head 256 -> 4096: 32768 + 2097152 + 524288 B = 13.5 units), so
// that stage keeps one layer (14.5 units) and the first takes three (3).
// Stage 1's memory: layer 3's 131072 B and the head's 2097152 B of weights
// + 32768 B of results = 2.26 MB.
// CHECK-LABEL: func.func @heavy_head
// CHECK: loom.layer 0({{.*}}) {stage = 0 : i64}
// CHECK: loom.layer 2({{.*}}) {stage = 0 : i64}
// CHECK: loom.layer 3({{.*}}) {stage = 1 : i64}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  // expected-remark @+1 {{2 stages on v5e-4; slowest stage 0.004 ms; stage 0: layers 0-2, 0.001 ms, 425.98 kB; stage 1: layers 3-3, 0.004 ms, 2.26 MB}}
  func.func @heavy_head(%x: tensor<1x64x256xbf16>) -> tensor<1x64x4096xbf16> {
    %0 = loom.layer 0 (%x) : (tensor<1x64x256xbf16>) -> tensor<1x64x256xbf16> {
    ^bb0(%in: tensor<1x64x256xbf16>):
      %o = loom.linear o %in : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      loom.yield %o : tensor<1x64x256xbf16>
    }
    %1 = loom.layer 1 (%0) : (tensor<1x64x256xbf16>) -> tensor<1x64x256xbf16> {
    ^bb0(%in: tensor<1x64x256xbf16>):
      %o = loom.linear o %in : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      loom.yield %o : tensor<1x64x256xbf16>
    }
    %2 = loom.layer 2 (%1) : (tensor<1x64x256xbf16>) -> tensor<1x64x256xbf16> {
    ^bb0(%in: tensor<1x64x256xbf16>):
      %o = loom.linear o %in : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      loom.yield %o : tensor<1x64x256xbf16>
    }
    %3 = loom.layer 3 (%2) : (tensor<1x64x256xbf16>) -> tensor<1x64x256xbf16> {
    ^bb0(%in: tensor<1x64x256xbf16>):
      %o = loom.linear o %in : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      loom.yield %o : tensor<1x64x256xbf16>
    }
    %logits = loom.linear lm_head %3 : tensor<1x64x256xbf16> -> tensor<1x64x4096xbf16>
    return %logits : tensor<1x64x4096xbf16>
  }
}

