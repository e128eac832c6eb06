

// A pipeline is checked stage by stage. Each layer holds one 65536 x 65536
// bf16 weight, 8.59 GB: stage 0's one layer fits, stage 1's two do not, and
// the error is at the stage's first layer. The largest of the 2 slices
// holds 4 of the 8 tokens, so a layer's 1.05 MB of results count half.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @stages(%x: tensor<1x8x65536xbf16>) -> tensor<1x8x65536xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [4, 4]>} {
    // expected-remark @+1 {{stage 0 (layers 0-0): 8.59 GB of 16.00 GB per chip (54%): weights of layers 0-0 8.59 GB, activations in flight 524.29 kB}}
    %a = loom.layer 0 (%x) {stage = 0} : (tensor<1x8x65536xbf16>) -> tensor<1x8x65536xbf16> {
    ^bb0(%in: tensor<1x8x65536xbf16>):
      %h = loom.linear up %in : tensor<1x8x65536xbf16> -> tensor<1x8x65536xbf16>
      loom.yield %h : tensor<1x8x65536xbf16>
    }
    // expected-error @+1 {{stage 1 (layers 1-2) needs 17.18 GB of HBM per chip, more than the 16.00 GB of a tpu-v5e chip; largest items: weights of layers 1-2 17.18 GB, activations in flight 524.29 kB (largest layer: 1 at 8.59 GB)}}
    %b = loom.layer 1 (%a) {stage = 1} : (tensor<1x8x65536xbf16>) -> tensor<1x8x65536xbf16> {
    ^bb0(%in: tensor<1x8x65536xbf16>):
      %h = loom.linear up %in : tensor<1x8x65536xbf16> -> tensor<1x8x65536xbf16>
      loom.yield %h : tensor<1x8x65536xbf16>
    }
    %c = loom.layer 2 (%b) {stage = 1} : (tensor<1x8x65536xbf16>) -> tensor<1x8x65536xbf16> {
    ^bb0(%in: tensor<1x8x65536xbf16>):
      %h = loom.linear up %in : tensor<1x8x65536xbf16> -> tensor<1x8x65536xbf16>
      loom.yield %h : tensor<1x8x65536xbf16>
    }
    return %c : tensor<1x8x65536xbf16>
  }
}

