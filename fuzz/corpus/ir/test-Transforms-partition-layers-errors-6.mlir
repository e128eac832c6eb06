

// Sharding written on the ops must agree with the module's tp, which the
// passes lay out and price: a split op ...
module attributes {loom.parallel = #loom.parallel<tp = 2>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @split_edit(%ids: tensor<1x8xi32>) -> tensor<1x8x16xbf16> {
    // expected-error @+1 {{'loom.embed' op is sharded 4 ways, but the module's tensor parallelism (loom.parallel's tp) is 2; loom-partition-layers needs them to agree}}
    %x = loom.embed %ids {vocab = 64, loom.split = #loom.split<vocab, 4>} : tensor<1x8xi32> -> tensor<1x8x16xbf16>
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    %b = loom.layer 1 (%a) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %b : tensor<1x8x16xbf16>
  }
}

