// RUN: loom-opt %s -split-input-file -verify-diagnostics --loom-partition-layers=stages=2 --loom-split-tokens=slices=6 --loom-check-memory

// Two stages need two layers.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  // expected-error @+1 {{2 stages need at least 2 layers; the model has 1}}
  func.func @one(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      %h = loom.linear up %in : tensor<1x8x16xbf16> -> tensor<1x8x16xbf16>
      loom.yield %h : tensor<1x8x16xbf16>
    }
    return %a : tensor<1x8x16xbf16>
  }
}

// -----

// Eight tokens do not cut into six equal slices.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  // expected-error @+1 {{8 tokens do not split into 6 equal slices; give the lengths instead}}
  func.func @uneven(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      %h = loom.linear up %in : tensor<1x8x16xbf16> -> tensor<1x8x16xbf16>
      loom.yield %h : tensor<1x8x16xbf16>
    }
    %b = loom.layer 1 (%a) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      %h = loom.linear up %in : tensor<1x8x16xbf16> -> tensor<1x8x16xbf16>
      loom.yield %h : tensor<1x8x16xbf16>
    }
    return %b : tensor<1x8x16xbf16>
  }
}

// -----

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
