// RUN: loom-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK: func.func @two(%{{.*}}) -> tensor<1x8x16xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [5, 3]>}
// CHECK: loom.layer 0({{.*}}) {stage = 0 : i64}
// CHECK: loom.layer 1({{.*}}) {stage = 1 : i64}
func.func @two(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16>
    attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [5, 3]>} {
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

// CHECK: #loom.pipeline<stages = 4, slices = [256, 256], patches, steps = 50, warmup = 1>
func.func @patches() attributes {loom.pipeline = #loom.pipeline<stages = 4, slices = [256, 256], patches, steps = 50, warmup = 1>} {
  return
}

// -----

// expected-error @+1 {{the slices add up to 7 tokens but the layers see 8}}
func.func @sum(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16>
    attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [4, 3]>} {
  %a = loom.layer 0 (%x) {stage = 0} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
  ^bb0(%in: tensor<1x8x16xbf16>):
    loom.yield %in : tensor<1x8x16xbf16>
  }
  return %a : tensor<1x8x16xbf16>
}

// -----

func.func @gap(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16>
    attributes {loom.pipeline = #loom.pipeline<stages = 3, slices = [8]>} {
  %a = loom.layer 0 (%x) {stage = 0} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
  ^bb0(%in: tensor<1x8x16xbf16>):
    loom.yield %in : tensor<1x8x16xbf16>
  }
  // expected-error @+1 {{'loom.layer' op is on stage 2 after a layer on stage 0; stages must be contiguous and in order}}
  %b = loom.layer 1 (%a) {stage = 2} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
  ^bb0(%in: tensor<1x8x16xbf16>):
    loom.yield %in : tensor<1x8x16xbf16>
  }
  return %b : tensor<1x8x16xbf16>
}

// -----

func.func @unstaged(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16>
    attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [8]>} {
  // expected-error @+1 {{'loom.layer' op of a pipelined function has no stage}}
  %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
  ^bb0(%in: tensor<1x8x16xbf16>):
    loom.yield %in : tensor<1x8x16xbf16>
  }
  return %a : tensor<1x8x16xbf16>
}

// -----

// expected-error @+1 {{'loom.pipeline' has 2 stages but the layers use 1}}
func.func @unused(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16>
    attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [8]>} {
  %a = loom.layer 0 (%x) {stage = 0} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
  ^bb0(%in: tensor<1x8x16xbf16>):
    loom.yield %in : tensor<1x8x16xbf16>
  }
  return %a : tensor<1x8x16xbf16>
}

// -----

// expected-error @+1 {{slice #1 has 0 tokens; slices must be non-empty}}
func.func @zero() attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [8, 0]>} {
  return
}

// -----

// expected-error @+1 {{PipeFusion patches must be equal in size}}
func.func @unequal() attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [5, 3], patches, steps = 4>} {
  return
}

// -----

// expected-error @+1 {{warmup (5) must be between 0 and steps (4)}}
func.func @warmup() attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [4, 4], patches, steps = 4, warmup = 5>} {
  return
}

// -----

// The mode must suit the attention: PipeFusion's patches attend to every
// token, so a causal model cannot take them...
// expected-error @+1 {{'loom.pipeline' cuts patches (PipeFusion), but the model's attention is causal; causal models take token slices (TeraPipe)}}
func.func @patches_causal(%q: tensor<1x8x64xbf16>)
    attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [4, 4], patches, steps = 2>} {
  %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16, causal} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

// -----

// ...and TeraPipe's slices need it to be causal.
// expected-error @+1 {{'loom.pipeline' cuts token slices (TeraPipe), but no attention of the model is causal; a DiT takes patches (PipeFusion)}}
func.func @slices_full(%q: tensor<1x8x64xbf16>)
    attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [4, 4]>} {
  %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return
}

// -----

// The steps are the model's.
module attributes {loom.model = #loom.model<name = "dit", family = "dit", mode = diffusion, batch = 1, seq = 4, steps = 50>} {
  // expected-error @+1 {{'loom.pipeline' runs 3 denoising steps, but the model's loom.model has 50}}
  func.func @steps() attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [4], patches, steps = 3>} {
    return
  }
}

// -----

// Microbatches of a batch of 4: the attribute prints them last, and they
// round-trip.
// CHECK: #loom.pipeline<stages = 2, slices = [4, 4], microbatches = 2>
func.func @microbatches(%x: tensor<4x8x16xbf16>) -> tensor<4x8x16xbf16>
    attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [4, 4], microbatches = 2>} {
  %a = loom.layer 0 (%x) {stage = 0} : (tensor<4x8x16xbf16>) -> tensor<4x8x16xbf16> {
  ^bb0(%in: tensor<4x8x16xbf16>):
    loom.yield %in : tensor<4x8x16xbf16>
  }
  %b = loom.layer 1 (%a) {stage = 1} : (tensor<4x8x16xbf16>) -> tensor<4x8x16xbf16> {
  ^bb0(%in: tensor<4x8x16xbf16>):
    loom.yield %in : tensor<4x8x16xbf16>
  }
  return %b : tensor<4x8x16xbf16>
}

// -----

// Microbatches must divide the batch the layers run.
// expected-error @+1 {{'loom.pipeline' runs 3 microbatches, which do not divide the batch of 4 sequences (valid: 1, 2, 4)}}
func.func @microbatches_uneven(%x: tensor<4x8x16xbf16>) -> tensor<4x8x16xbf16>
    attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [8], microbatches = 3>} {
  %a = loom.layer 0 (%x) {stage = 0} : (tensor<4x8x16xbf16>) -> tensor<4x8x16xbf16> {
  ^bb0(%in: tensor<4x8x16xbf16>):
    loom.yield %in : tensor<4x8x16xbf16>
  }
  return %a : tensor<4x8x16xbf16>
}

// -----

// expected-error @+1 {{a pipeline needs at least one microbatch, got 0}}
func.func @no_microbatch() attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [8], microbatches = 0>} {
  return
}

// -----

// expected-error @+1 {{microbatches apply to token slices; PipeFusion patches of a batch run together (got 2 microbatches)}}
func.func @patch_microbatches() attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [4, 4], patches, steps = 2, microbatches = 2>} {
  return
}

// -----

// The optional parts come once each, in order.
// expected-error @+1 {{'steps' comes at most once, in the order mode, steps, warmup, microbatches}}
func.func @out_of_order() attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [8], microbatches = 2, steps = 3>} {
  return
}

// -----

// expected-error @+1 {{expected tokens, patches, steps, warmup, microbatches, virtual_stages or schedule, got 'microbatch'}}
func.func @misspelt() attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [8], microbatch = 2>} {
  return
}

// -----

// A training step's schedule: printed when not the default (gpipe), quoted
// (1f1b, zb-h1 and zb-h2 are no keywords); a bare keyword parses too.
// CHECK: #loom.pipeline<stages = 1, slices = [8], schedule = "1f1b">
func.func @one_f_one_b() attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [8], schedule = "1f1b">} {
  return
}
// CHECK: #loom.pipeline<stages = 1, slices = [8], schedule = "zb-h1">
func.func @zero_bubble() attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [8], schedule = "zb-h1">} {
  return
}
// CHECK: #loom.pipeline<stages = 1, slices = [8], schedule = "zb-h2">
func.func @zero_bubble_h2() attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [8], schedule = "zb-h2">} {
  return
}
// CHECK: #loom.pipeline<stages = 2, slices = [8], virtual_stages = 2, schedule = "circular">
func.func @circular() attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [8], virtual_stages = 2, schedule = circular>} {
  return
}
// CHECK: #loom.pipeline<stages = 2, slices = [8]>
func.func @gpipe() attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [8], schedule = "gpipe">} {
  return
}

// -----

// expected-error @+1 {{unknown pipeline schedule '1f2b' (valid: gpipe, 1f1b, interleaved, zb-h1, circular, zb-h2)}}
func.func @unknown_schedule() attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [8], schedule = "1f2b">} {
  return
}

// -----

// expected-error @+1 {{the 1f1b schedule needs at least as many microbatches as stages (4), got 2}}
func.func @too_few_microbatches() attributes {loom.pipeline = #loom.pipeline<stages = 4, slices = [8], microbatches = 2, schedule = "1f1b">} {
  return
}

// -----

// expected-error @+1 {{the zb-h1 schedule needs at least as many microbatches as stages (2), got 1}}
func.func @zero_bubble_one_microbatch() attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [8], schedule = "zb-h1">} {
  return
}

// -----

// ZB-H2's first stage runs 2p - 1 forwards before its first backward pass.
// expected-error @+1 {{the zb-h2 schedule needs at least 2 x stages - 1 (7) microbatches, got 6}}
func.func @zero_bubble_h2_few_microbatches() attributes {loom.pipeline = #loom.pipeline<stages = 4, slices = [8], microbatches = 6, schedule = "zb-h2">} {
  return
}

// -----

// expected-error @+1 {{a pipeline schedule orders a training step's microbatches; PipeFusion patches take none (got circular)}}
func.func @patch_schedule() attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [4, 4], patches, steps = 2, schedule = "circular">} {
  return
}
