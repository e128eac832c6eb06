// What convert-loom-to-sched refuses, each at the op or module that caused
// it; and the malformed plans the verifier keeps from it.
// RUN: loom-opt %s -split-input-file -verify-diagnostics --convert-loom-to-sched

// expected-error @+1 {{convert-loom-to-sched needs a target: run loom-set-target first (e.g. --loom-set-target=topology=v5e-16), or import with --target}}
module {
}

// -----

// Functions without layers (or only declarations) are no model.
// expected-error @+1 {{convert-loom-to-sched found no model function with loom.layer ops}}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func private @external(tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16>
  func.func @no_layers(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %h = loom.linear up %x : tensor<1x8x16xbf16> -> tensor<1x8x16xbf16>
    return %h : tensor<1x8x16xbf16>
  }
}

// -----

// Tasks and buffers are named by layer index, in model order.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @numbered(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    // expected-error @+1 {{'loom.layer' op has index 1 but is layer #0 of the model; convert-loom-to-sched needs layers numbered 0, 1, ... in order}}
    %a = loom.layer 1 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %a : tensor<1x8x16xbf16>
  }
}

// -----

// The chips are laid out for the module's tp; sharding written on the ops
// must say the same: a split ...
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @unsharded_module(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      // expected-error @+1 {{'loom.linear' op is sharded 2 ways, but the module's tensor parallelism (loom.parallel's tp) is 1; convert-loom-to-sched needs them to agree}}
      %h = loom.linear up %in {loom.split = #loom.split<column, 2>} : tensor<1x8x16xbf16> -> tensor<1x8x8xbf16>
      %g = loom.linear down %h {loom.split = #loom.split<row, 2>} : tensor<1x8x8xbf16> -> tensor<1x8x16xbf16>
      loom.yield %g : tensor<1x8x16xbf16>
    }
    return %a : tensor<1x8x16xbf16>
  }
}

// -----

// ... or a local shard's group.
module attributes {loom.parallel = #loom.parallel<tp = 2>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @local_shard(%x: tensor<1x8x16xbf16>) -> tensor<1x8x4xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x4xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      // expected-error @+1 {{'loom.local_shard' op is sharded 4 ways, but the module's tensor parallelism (loom.parallel's tp) is 2; convert-loom-to-sched needs them to agree}}
      %p = loom.local_shard %in {dim = 2, group = "tp", group_size = 4} : tensor<1x8x16xbf16> -> tensor<1x8x4xbf16>
      loom.yield %p : tensor<1x8x4xbf16>
    }
    return %a : tensor<1x8x4xbf16>
  }
}

// -----

// Replicas of tp x stages chips must tile the topology: 3 chips do not
// tile v5e-4's 4.
// expected-error @+1 {{tensor-parallel 3 x stages 1 x data-parallel 1 does not lay out on v5e-4 (4 chips): replicas of tp x stages chips must tile it}}
module attributes {loom.parallel = #loom.parallel<tp = 3>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @three(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %a : tensor<1x8x16xbf16>
  }
}

// -----

// tp 2 x 2 stages x 2 replicas = 8 chips, but v5e-4 has 4.
// expected-error @+1 {{tensor-parallel 2 x stages 2 x data-parallel 2 does not lay out on v5e-4 (4 chips): replicas of tp x stages chips must tile it}}
module attributes {loom.parallel = #loom.parallel<tp = 2, dp = 2>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @replicas(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [8]>} {
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
}

// -----

// A hand-written dp whose chip count passes 64 bits saturates rather than
// wrapping to a count that fits (F2).
// expected-error @+1 {{tensor-parallel 2 x stages 1 x data-parallel 4611686018427387904 does not lay out on v5e-4 (4 chips): replicas of tp x stages chips must tile it}}
module attributes {loom.parallel = #loom.parallel<tp = 2, dp = 4611686018427387904>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @huge_dp(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %a : tensor<1x8x16xbf16>
  }
}

// -----

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

// -----

// A layer on a stage past the pipeline never reaches the lowering (which
// would index a stage that does not exist): the verifier refuses it.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @past(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [8]>} {
    %a = loom.layer 0 (%x) {stage = 0} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    // expected-error @+1 {{'loom.layer' op is on stage 1 but the pipeline has 1 stages}}
    %b = loom.layer 1 (%a) {stage = 1} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %b : tensor<1x8x16xbf16>
  }
}

// -----

// Nor does a stage with no layers (the lowering sends a stage's last
// layer's results on).
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  // expected-error @+1 {{'loom.pipeline' has 2 stages but the layers use 1}}
  func.func @empty_stage(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [8]>} {
    %a = loom.layer 0 (%x) {stage = 0} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %a : tensor<1x8x16xbf16>
  }
}

// -----

// Nor a stage without a pipeline.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @no_pipeline(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    // expected-error @+1 {{'loom.layer' op is on stage 0, but its function has no 'loom.pipeline' (loom-partition-layers sets both)}}
    %a = loom.layer 0 (%x) {stage = 0} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %a : tensor<1x8x16xbf16>
  }
}
