// The weight-gathered layout's IR (Pope et al. 2023, section 3.2.3):
// #loom.parallel's weight_gathered, #loom.split<gathered, N> and
// loom.gather_weights print and parse back, and what cannot run is refused.
// RUN: loom-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK: module attributes {loom.parallel = #loom.parallel<tp = 2, weight_gathered = true>}
// CHECK: loom.gather_weights {bytes = 16384 : i64, group = "tp", group_size = 2 : i64}
// CHECK-NEXT: loom.linear up {{.*}} {loom.split = #loom.split<gathered, 2>}
module attributes {loom.parallel = #loom.parallel<tp = 2, weight_gathered = true>} {
  func.func @f(%x: tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    ^bb0(%in: tensor<1x8x64xbf16>):
      loom.gather_weights {bytes = 16384 : i64, group = "tp", group_size = 2 : i64}
      %u = loom.linear up %in {loom.split = #loom.split<gathered, 2>} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      %d = loom.linear down %u {loom.split = #loom.split<gathered, 2>} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      loom.yield %d : tensor<1x8x64xbf16>
    }
    return %y : tensor<1x8x64xbf16>
  }
}

