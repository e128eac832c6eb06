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

// -----

// CHECK: #loom.pipeline<stages = 4, slices = [8], steps = 3, virtual_stages = 4>
func.func @both() attributes {loom.pipeline = #loom.pipeline<stages = 4, slices = [8], steps = 3, virtual_stages = 4>} {
  return
}

// -----

// expected-error @+1 {{'microbatches' comes at most once, in the order mode, steps, warmup, microbatches, virtual_stages}}
func.func @order() attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [8], virtual_stages = 2, microbatches = 2>} {
  return
}

// -----

// expected-error @+1 {{a pipeline needs at least one virtual stage per stage, got 0}}
func.func @zero() attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [8], virtual_stages = 0>} {
  return
}

// -----

// expected-error @+1 {{stages x virtual_stages = 4 x 4611686018427387904 chunks is 2^63 or more}}
func.func @overflow() attributes {loom.pipeline = #loom.pipeline<stages = 4, slices = [8], virtual_stages = 4611686018427387904>} {
  return
}

// -----

// expected-error @+1 {{virtual_stages = 2 interleaves chunks over several stages, but the pipeline has one stage}}
func.func @one() attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [8], virtual_stages = 2>} {
  return
}

// -----

// expected-error @+1 {{virtual_stages apply to token slices; PipeFusion patches already stream across steps (got 2 virtual stages)}}
func.func @patches() attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [4, 4], patches, steps = 2, virtual_stages = 2>} {
  return
}

// -----

// Two stages of two chunks: the layers must use all four chunks.
// expected-error @+1 {{'loom.pipeline' has 4 chunks (stages x virtual_stages) but the layers use 2}}
func.func @short(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16>
    attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [8], virtual_stages = 2>} {
  %a = loom.layer 0 (%x) {stage = 0} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
  ^bb0(%in: tensor<1x8x16xbf16>):
    loom.yield %in : tensor<1x8x16xbf16>
  }
  %b = loom.layer 1 (%a) {stage = 1} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
  ^bb0(%in: tensor<1x8x16xbf16>):
    loom.yield %in : tensor<1x8x16xbf16>
  }
  return %b : tensor<1x8x16xbf16>
}

// -----

func.func @past(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16>
    attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [8], virtual_stages = 1>} {
  %a = loom.layer 0 (%x) {stage = 0} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
  ^bb0(%in: tensor<1x8x16xbf16>):
    loom.yield %in : tensor<1x8x16xbf16>
  }
  %b = loom.layer 1 (%a) {stage = 1} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
  ^bb0(%in: tensor<1x8x16xbf16>):
    loom.yield %in : tensor<1x8x16xbf16>
  }
  // expected-error @+1 {{'loom.layer' op is on stage 2 but the pipeline has 2 stages}}
  %c = loom.layer 2 (%b) {stage = 2} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
  ^bb0(%in: tensor<1x8x16xbf16>):
    loom.yield %in : tensor<1x8x16xbf16>
  }
  return %c : tensor<1x8x16xbf16>
}
