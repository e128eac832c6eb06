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

// -----

// expected-error @+1 {{weight_gathered splits the batch over the tp group and gathers whole layers' weights: it needs tp >= 2 and no tp_x, sp, ep or sequence_parallel, got tp = 1}}
module attributes {loom.parallel = #loom.parallel<weight_gathered = true>} {}

// -----

// expected-error @+1 {{it needs tp >= 2 and no tp_x, sp, ep or sequence_parallel, got tp = 8}}
module attributes {loom.parallel = #loom.parallel<tp = 8, tp_x = 2, weight_gathered = true>} {}

// -----

// The gather must carry all of the layer's weights (two 64 x 64 bf16
// projections: 16384 bytes).
module attributes {loom.parallel = #loom.parallel<tp = 2, weight_gathered = true>} {
  func.func @f(%x: tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    ^bb0(%in: tensor<1x8x64xbf16>):
      // expected-error @+1 {{'loom.gather_weights' op gathers 8192 bytes, but the layer's weights are 16384 bytes; it must gather all of them}}
      loom.gather_weights {bytes = 8192 : i64, group = "tp", group_size = 2 : i64}
      %u = loom.linear up %in : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      %d = loom.linear down %u : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      loom.yield %d : tensor<1x8x64xbf16>
    }
    return %y : tensor<1x8x64xbf16>
  }
}

// -----

// Before the layer's ops, not among them.
module {
  func.func @f(%x: tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    ^bb0(%in: tensor<1x8x64xbf16>):
      %u = loom.linear up %in : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      // expected-error @+1 {{'loom.gather_weights' op must be the first op of its loom.layer}}
      loom.gather_weights {bytes = 8192 : i64, group = "tp", group_size = 2 : i64}
      loom.yield %u : tensor<1x8x64xbf16>
    }
    return %y : tensor<1x8x64xbf16>
  }
}

// -----

// Over the module's weight-gathered group, of its size.
module attributes {loom.parallel = #loom.parallel<tp = 4>} {
  func.func @f(%x: tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    ^bb0(%in: tensor<1x8x64xbf16>):
      // expected-error @+1 {{'loom.gather_weights' op gathers over 2 chips, but the module's layout is #loom.parallel<tp = 4>; it needs #loom.parallel<tp = 2, weight_gathered = true>}}
      loom.gather_weights {bytes = 8192 : i64, group = "tp", group_size = 2 : i64}
      %u = loom.linear up %in : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      loom.yield %u : tensor<1x8x64xbf16>
    }
    return %y : tensor<1x8x64xbf16>
  }
}

// -----

module {
  func.func @f(%x: tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    ^bb0(%in: tensor<1x8x64xbf16>):
      // expected-error @+1 {{'loom.gather_weights' op gathers over the tensor-parallel group "tp", got group "sp"}}
      loom.gather_weights {bytes = 8192 : i64, group = "sp", group_size = 2 : i64}
      %u = loom.linear up %in : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      loom.yield %u : tensor<1x8x64xbf16>
    }
    return %y : tensor<1x8x64xbf16>
  }
}

// -----

// Outside a layer there is no layer to gather for.
func.func @g() {
  // expected-error @+1 {{'loom.gather_weights' op expects parent op 'loom.layer'}}
  loom.gather_weights {bytes = 0 : i64, group = "tp", group_size = 2 : i64}
  return
}
