

// Functions without layers (or only declarations) are no model.
// expected-error @+1 {{convert-loom-to-sched found no model function with loom.layer ops}}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func private @external(tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16>
  func.func @no_layers(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %h = loom.linear up %x : tensor<1x8x16xbf16> -> tensor<1x8x16xbf16>
    return %h : tensor<1x8x16xbf16>
  }
}

