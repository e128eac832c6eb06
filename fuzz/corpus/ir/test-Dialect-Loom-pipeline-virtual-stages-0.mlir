// #loom.pipeline's virtual_stages: printed after the other optional parts,
// layers carrying their chunk (stages x virtual_stages of them), and the
// verifier's refusals.
// RUN: loom-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK: #loom.pipeline<stages = 2, slices = [4, 4], virtual_stages = 2>
// CHECK: {stage = 3 : i64}
func.func @chunks(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16>
    attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [4, 4], virtual_stages = 2>} {
  %a = loom.layer 0 (%x) {stage = 0} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
  ^bb0(%in: tensor<1x8x16xbf16>):
    loom.yield %in : tensor<1x8x16xbf16>
  }
  %b = loom.layer 1 (%a) {stage = 1} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
  ^bb0(%in: tensor<1x8x16xbf16>):
    loom.yield %in : tensor<1x8x16xbf16>
  }
  %c = loom.layer 2 (%b) {stage = 2} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
  ^bb0(%in: tensor<1x8x16xbf16>):
    loom.yield %in : tensor<1x8x16xbf16>
  }
  %d = loom.layer 3 (%c) {stage = 3} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
  ^bb0(%in: tensor<1x8x16xbf16>):
    loom.yield %in : tensor<1x8x16xbf16>
  }
  return %d : tensor<1x8x16xbf16>
}

