// RUN: loom-opt %s -split-input-file -verify-diagnostics

// Verifier and ODS-constraint errors of the loom dialect, one per case.

//===----------------------------------------------------------------------===//
// loom.layer / loom.yield / loom.param
//===----------------------------------------------------------------------===//

func.func @layer_arg_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{'loom.layer' op has 1 inputs but its body takes 0 arguments}}
  loom.layer 0 (%x) : (tensor<4xf32>) -> () {
    loom.yield
  }
  return
}

