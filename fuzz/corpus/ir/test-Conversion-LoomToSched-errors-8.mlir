

// Chips are laid out on 2-D topologies; tpu-v5p's are 3-D.
// expected-error @+1 {{device meshes are built on 2-D topologies; v5p-8 has 3 axes}}
module attributes {loom.target = #loom.target<"tpu-v5p", shape = [2, 2, 1]>} {
  func.func @torus_3d(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %a : tensor<1x8x16xbf16>
  }
}

