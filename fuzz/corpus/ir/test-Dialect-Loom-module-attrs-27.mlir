

// A 2-D tensor-parallel layout (tp_x rows of the block) prints and parses
// back, as does a weight split over both sub-groups.
// CHECK: module attributes {loom.parallel = #loom.parallel<tp = 8, tp_x = 2>}
module attributes {loom.parallel = #loom.parallel<tp = 8, tp_x = 2>} {
  // CHECK: loom.linear up {{.*}} {loom.split = #loom.split<column, 4 x 2>}
  func.func @up(%x: tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    %u = loom.linear up %x {loom.split = #loom.split<column, 4 x 2>} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
    return %u : tensor<1x8x64xbf16>
  }
}

