

// A 65536 x 65536 bf16 weight is 8.59 GB: two of them do not fit one chip,
// and no cut into two stages helps since they sit in one layer.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  // expected-error @+1 {{no cut of 2 layers into 2 stages fits in 16.00 GB of HBM per chip: the fastest cut needs up to 17.18 GB on a stage; use more stages or tensor parallelism}}
  func.func @huge(%x: tensor<1x8x65536xbf16>) -> tensor<1x8x65536xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x65536xbf16>) -> tensor<1x8x65536xbf16> {
    ^bb0(%in: tensor<1x8x65536xbf16>):
      %h = loom.linear up %in : tensor<1x8x65536xbf16> -> tensor<1x8x65536xbf16>
      %g = loom.linear down %h : tensor<1x8x65536xbf16> -> tensor<1x8x65536xbf16>
      loom.yield %g : tensor<1x8x65536xbf16>
    }
    %b = loom.layer 1 (%a) : (tensor<1x8x65536xbf16>) -> tensor<1x8x65536xbf16> {
    ^bb0(%in: tensor<1x8x65536xbf16>):
      loom.yield %in : tensor<1x8x65536xbf16>
    }
    return %b : tensor<1x8x65536xbf16>
  }
}

