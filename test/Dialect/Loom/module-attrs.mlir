// The IR contract's attributes: every loom.* name is declared once
// (loom/Dialect/Loom/LoomAttributes.h), typed, and checked where it sits
// and against the graph it describes.
// RUN: loom-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK: module attributes {loom.model = #loom.model<name = "tiny", family = "llama", mode = prefill, batch = 2, seq = 8>, loom.parallel = #loom.parallel<tp = 2, dp = 3, sequence_parallel = true>}
module attributes {loom.model = #loom.model<name = "tiny", family = "llama", mode = prefill, batch = 2, seq = 8>, loom.parallel = #loom.parallel<tp = 2, dp = 3, sequence_parallel = true>} {
  func.func @tiny(%ids: tensor<2x8xi32> {loom.name = "input_ids"}, %q: tensor<2x8x64xbf16>) {
    %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16, causal} : tensor<2x8x64xbf16>, tensor<2x8x64xbf16> -> tensor<2x8x64xbf16>
    return
  }
}

// -----

// Defaults are left out when printed.
// CHECK: module attributes {loom.parallel = #loom.parallel<>}
module attributes {loom.parallel = #loom.parallel<tp = 1, dp = 1>} {}

// -----

// expected-error @+1 {{unknown attribute 'loom.tp' (loom's: loom.target, loom.model, loom.parallel, loom.pipeline, loom.split, loom.time_us, loom.placement, loom.kept, loom.recompute, loom.offloaded)}}
module attributes {loom.tp = 4 : i64} {}

// -----

// expected-error @+1 {{'loom.model' must be a #loom.model, got {mode = "prefill"}}}
module attributes {loom.model = {mode = "prefill"}} {}

// -----

// expected-error @+1 {{'loom.model' belongs on the module}}
func.func @f() attributes {loom.model = #loom.model<name = "x", family = "llama", mode = prefill, batch = 1, seq = 1>} {
  return
}

// -----

// expected-error @+2 {{expected true or false, got 'yes'}}
// expected-error @+1 {{failed to parse Loom_ParallelAttr parameter 'sequence_parallel'}}
module attributes {loom.parallel = #loom.parallel<tp = 2, sequence_parallel = yes>} {}

// -----

// expected-error @+1 {{tp and dp must be positive, got 0 and 1}}
module attributes {loom.parallel = #loom.parallel<tp = 0>} {}

// -----

// expected-error @+1 {{sequence_parallel splits activations across the tensor-parallel group, so it needs tp >= 2}}
module attributes {loom.parallel = #loom.parallel<sequence_parallel = true>} {}

// -----

// expected-error @+1 {{a model's batch and seq must be positive, got 1 and 0}}
module attributes {loom.model = #loom.model<name = "x", family = "llama", mode = prefill, batch = 1, seq = 0>} {}

// -----

// expected-error @+1 {{mode diffusion needs steps}}
module attributes {loom.model = #loom.model<name = "x", family = "dit", mode = diffusion, batch = 1, seq = 4>} {}

// -----

// expected-error @+1 {{steps belong to mode diffusion}}
module attributes {loom.model = #loom.model<name = "x", family = "llama", mode = prefill, batch = 1, seq = 4, steps = 50>} {}

// -----

// expected-error @+2 {{expected ::loom::ModelMode to be one of: prefill, decode, diffusion}}
// expected-error @+1 {{failed to parse Loom_ModelAttr parameter 'mode'}}
module attributes {loom.model = #loom.model<name = "x", family = "llama", mode = train, batch = 1, seq = 4>} {}

// -----

// A language model's graph under a DiT's mode would be cut into PipeFusion
// patches.
// expected-error @+1 {{'loom.model' says mode diffusion, but the model has causal attention (a language model)}}
module attributes {loom.model = #loom.model<name = "x", family = "dit", mode = diffusion, batch = 1, seq = 8, steps = 50>} {
  func.func @f(%q: tensor<1x8x64xbf16>) {
    %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16, causal} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
    return
  }
}

// -----

// expected-error @+1 {{'loom.model' says mode prefill, a causal language model, but none of the model's attention is causal}}
module attributes {loom.model = #loom.model<name = "x", family = "llama", mode = prefill, batch = 1, seq = 8>} {
  func.func @f(%q: tensor<1x8x64xbf16>) {
    %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
    return
  }
}

// -----

// Hand-edited metadata that contradicts the tensors: the batch and the
// prompt are the model's inputs.
// expected-error @+1 {{'loom.model' has batch 4, but the model's input 'tensor<2x8xi32>' has 2}}
module attributes {loom.model = #loom.model<name = "x", family = "llama", mode = prefill, batch = 4, seq = 8>} {
  func.func @f(%ids: tensor<2x8xi32>, %x: tensor<2x8x64xbf16>) {
    %0 = loom.layer 0(%x) {kind = "llama"} : (tensor<2x8x64xbf16>) -> tensor<2x8x64xbf16> {
    ^bb0(%h: tensor<2x8x64xbf16>):
      %1 = loom.attention %h, %h, %h {heads = 4, kv_heads = 4, head_dim = 16, causal} : tensor<2x8x64xbf16>, tensor<2x8x64xbf16> -> tensor<2x8x64xbf16>
      loom.yield %1 : tensor<2x8x64xbf16>
    }
    return
  }
}

// -----

// expected-error @+1 {{'loom.model' has seq 2048, but the model's layers see 8 tokens}}
module attributes {loom.model = #loom.model<name = "x", family = "llama", mode = prefill, batch = 2, seq = 2048>} {
  func.func @f(%ids: tensor<2x8xi32>, %x: tensor<2x8x64xbf16>) {
    %0 = loom.layer 0(%x) {kind = "llama"} : (tensor<2x8x64xbf16>) -> tensor<2x8x64xbf16> {
    ^bb0(%h: tensor<2x8x64xbf16>):
      %1 = loom.attention %h, %h, %h {heads = 4, kv_heads = 4, head_dim = 16, causal} : tensor<2x8x64xbf16>, tensor<2x8x64xbf16> -> tensor<2x8x64xbf16>
      loom.yield %1 : tensor<2x8x64xbf16>
    }
    return
  }
}

// -----

// A decode step's sequence is its attention's cache.
// expected-error @+1 {{'loom.model' has seq 100, but the model's attention has cached 99 tokens}}
module attributes {loom.model = #loom.model<name = "x", family = "llama", mode = decode, batch = 1, seq = 100>} {
  func.func @f(%ids: tensor<1x1xi32>, %x: tensor<1x1x64xbf16>) {
    %0 = loom.layer 0(%x) {kind = "llama"} : (tensor<1x1x64xbf16>) -> tensor<1x1x64xbf16> {
    ^bb0(%h: tensor<1x1x64xbf16>):
      %1 = loom.attention %h, %h, %h {heads = 4, kv_heads = 4, head_dim = 16, causal, cached = 99} : tensor<1x1x64xbf16>, tensor<1x1x64xbf16> -> tensor<1x1x64xbf16>
      loom.yield %1 : tensor<1x1x64xbf16>
    }
    return
  }
}

// -----

// F1 (shared/repro/stage-without-pipeline.mlir): a stage means a place in
// the function's pipeline; the lowering indexed stages that did not exist.
func.func @f(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.layer' op is on stage 1, but its function has no 'loom.pipeline' (loom-partition-layers sets both)}}
  %0 = loom.layer 0(%x) {kind = "llama", stage = 1 : i64} : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
  ^bb0(%h: tensor<1x8x64xbf16>):
    loom.yield %h : tensor<1x8x64xbf16>
  }
  return
}

// -----

// F2 (shared/repro/pipeline-slices-overflow.mlir): slice lengths add up in
// saturating arithmetic instead of wrapping to a negative count.
// expected-error @+1 {{the slices add up to 2^63 or more tokens but the layers see 8}}
func.func @f(%x: tensor<1x8x64xbf16>) attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [9223372036854775807, 9223372036854775807]>} {
  %0 = loom.layer 0(%x) {kind = "llama", stage = 0 : i64} : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
  ^bb0(%h: tensor<1x8x64xbf16>):
    loom.yield %h : tensor<1x8x64xbf16>
  }
  return
}

// -----

// F3 (shared/repro/sequence-parallel-tokens-overflow.mlir): tokens x tp
// saturates instead of wrapping to 0, which skipped the check.
module attributes {loom.parallel = #loom.parallel<tp = 4611686018427387904, sequence_parallel = true>} {
  // expected-error @+1 {{the slices add up to 16 tokens but the layers see 9223372036854775807}}
  func.func @f(%x: tensor<1x8x64xbf16>) attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [16]>} {
    %0 = loom.layer 0(%x) {kind = "llama", stage = 0 : i64} : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    ^bb0(%h: tensor<1x8x64xbf16>):
      loom.yield %h : tensor<1x8x64xbf16>
    }
    return
  }
}

// -----

// expected-error @+1 {{'loom.time_us' belongs on a loom.layer}}
func.func @f() attributes {loom.time_us = 1.0 : f64} {
  return
}

// -----

func.func @f(%x: tensor<1x8x64xbf16>) {
  // expected-error @+1 {{'loom.time_us' must be a finite, non-negative time}}
  %0 = loom.layer 0(%x) {kind = "llama", loom.time_us = -1.0 : f64} : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
  ^bb0(%h: tensor<1x8x64xbf16>):
    loom.yield %h : tensor<1x8x64xbf16>
  }
  return
}

// -----

// expected-error @+1 {{'loom.split' belongs on a loom op}}
func.func @f() attributes {loom.split = #loom.split<row, 2>} {
  return
}

// -----

// expected-error @+1 {{unknown argument attribute 'loom.label' (loom's: loom.name)}}
func.func @f(%x: tensor<1xi32> {loom.label = "x"}) {
  return
}

// -----

// A video DiT's workload: frames, height and width in pixels.
// CHECK: #loom.model<name = "wan", family = "wan", mode = diffusion, batch = 2, seq = 75600, text_tokens = 512, steps = 50, height = 720, width = 1280, frames = 81>
module attributes {loom.model = #loom.model<name = "wan", family = "wan", mode = diffusion, batch = 2, seq = 75600, text_tokens = 512, steps = 50, height = 720, width = 1280, frames = 81>} {}

// -----

// expected-error @+1 {{a model has a square resolution or a height and width, not both}}
module attributes {loom.model = #loom.model<name = "x", family = "sd3", mode = diffusion, batch = 1, seq = 4, steps = 2, resolution = 64, height = 64, width = 32>} {}

// -----

// expected-error @+1 {{a model's height and width go together, and frames need both}}
module attributes {loom.model = #loom.model<name = "x", family = "wan", mode = diffusion, batch = 1, seq = 4, steps = 2, frames = 9>} {}

// -----

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

// -----

// expected-error @+1 {{tp_x 3 must divide tp 8: the 2-D group is tp_x x (tp / tp_x) chips}}
module attributes {loom.parallel = #loom.parallel<tp = 8, tp_x = 3>} {}

// -----

// expected-error @+1 {{a 2-D tensor-parallel group (tp_x = 2) runs without sp, ep or sequence_parallel}}
module attributes {loom.parallel = #loom.parallel<tp = 8, sequence_parallel = true, tp_x = 2>} {}

// -----

// An expert-parallel group of its own beside tp (ep_data): ep need not
// divide tp, and the group prints and parses back.
// CHECK: module attributes {loom.parallel = #loom.parallel<tp = 4, ep = 8, ep_data = true>}
module attributes {loom.parallel = #loom.parallel<tp = 4, ep = 8, ep_data = true>} {}

// -----

// expected-error @+1 {{ep 8 must divide tp 4: expert parallelism runs over the tensor-parallel group's chips (or over a group of its own: ep_data)}}
module attributes {loom.parallel = #loom.parallel<tp = 4, ep = 8>} {}

// -----

// expected-error @+1 {{ep_data gives the ep chips a group of their own beside tp; it needs ep >= 2 and no sp, got ep = 4 and sp = 2}}
module attributes {loom.parallel = #loom.parallel<tp = 4, ep = 4, sp = 2, ep_data = true>} {}

// -----

// expected-error @+1 {{ep_data gives the ep chips a group of their own beside tp; it needs ep >= 2 and no sp, got ep = 1 and sp = 1}}
module attributes {loom.parallel = #loom.parallel<tp = 4, ep_data = true>} {}
