

// expected-error @+1 {{loom-partition-layers found no model function with loom.layer ops}}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @no_layers(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %h = loom.linear up %x : tensor<1x8x16xbf16> -> tensor<1x8x16xbf16>
    return %h : tensor<1x8x16xbf16>
  }
}

