// Requests loom-partition-layers refuses, on hand-written models.
// RUN: loom-opt %s -split-input-file -verify-diagnostics --loom-partition-layers=stages=2
// RUN: not loom-opt %s -split-input-file --loom-partition-layers=stages=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not loom-opt %s -split-input-file "--loom-partition-layers=stages=1 data-parallel=0" 2>&1 | FileCheck %s --check-prefix=ZERODP
// A product past 64 bits saturates rather than wrapping to a count that
// fits (F2).
// RUN: not loom-opt %s -split-input-file "--loom-partition-layers=stages=1 data-parallel=4611686018427387904" 2>&1 | FileCheck %s --check-prefix=HUGEDP
// Replicas of tp x stages chips must tile the topology, or the lowering
// cannot lay them out: refused when the stages are cut, with the counts
// that work.
// RUN: not loom-opt %s -split-input-file --loom-partition-layers=stages=3 2>&1 | FileCheck %s --check-prefix=TILE

// ZERO: error: stages and data-parallel must be at least 1, got 0 and 1
// ZERODP: error: stages and data-parallel must be at least 1, got 1 and 0
// HUGEDP: error: tensor-parallel 2 x stages 1 x data-parallel 4611686018427387904 = 2^63 or more chips, but v5e-4 has 4
// TILE: error: tensor-parallel 1 x stages 3 = 3 chips per replica does not divide v5e-16's 16, which replicas tile; stage counts that do with tp 1: 1, 2, 4, 8, 16

// expected-error @+1 {{loom-partition-layers needs a target: run loom-set-target first (e.g. --loom-set-target=topology=v5e-16), or import with --target}}
module {
}

// -----

// expected-error @+1 {{loom-partition-layers found no model function with loom.layer ops}}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @no_layers(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %h = loom.linear up %x : tensor<1x8x16xbf16> -> tensor<1x8x16xbf16>
    return %h : tensor<1x8x16xbf16>
  }
}

// -----

// Two stages need two layers.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  // expected-error @+1 {{2 stages need at least 2 layers; the model has 1}}
  func.func @one(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      %h = loom.linear up %in : tensor<1x8x16xbf16> -> tensor<1x8x16xbf16>
      loom.yield %h : tensor<1x8x16xbf16>
    }
    return %a : tensor<1x8x16xbf16>
  }
}

// -----

// With tp = 4, two stages need 8 chips; v5e-4 has 4.
// expected-error @+1 {{tensor-parallel 4 x stages 2 x data-parallel 1 = 8 chips, but v5e-4 has 4}}
module attributes {loom.parallel = #loom.parallel<tp = 4>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @wide(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    %b = loom.layer 1 (%a) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %b : tensor<1x8x16xbf16>
  }
}

// -----

// A 65536 x 65536 bf16 weight is 8.59 GB: two of them do not fit one chip,
// and no cut into two stages helps since they sit in one layer.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  // expected-error @+1 {{no cut of 2 layers into 2 stages fits in 16.00 GB of HBM per chip: the fastest cut needs up to 17.18 GB on a stage; use more stages or tensor parallelism}}
  func.func @huge(%x: tensor<1x8x65536xbf16>) -> tensor<1x8x65536xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x65536xbf16>) -> tensor<1x8x65536xbf16> {
    ^bb0(%in: tensor<1x8x65536xbf16>):
      %h = loom.linear up %in : tensor<1x8x65536xbf16> -> tensor<1x8x65536xbf16>
      %g = loom.linear down %h : tensor<1x8x65536xbf16> -> tensor<1x8x65536xbf16>
      loom.yield %g : tensor<1x8x65536xbf16>
    }
    %b = loom.layer 1 (%a) : (tensor<1x8x65536xbf16>) -> tensor<1x8x65536xbf16> {
    ^bb0(%in: tensor<1x8x65536xbf16>):
      loom.yield %in : tensor<1x8x65536xbf16>
    }
    return %b : tensor<1x8x65536xbf16>
  }
}

// -----

// Hand-edited IR whose layers are not numbered 0, 1, ... in order.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @numbered(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    // expected-error @+1 {{'loom.layer' op has index 0 but is layer #1 of the model; loom-partition-layers needs layers numbered 0, 1, ... in order}}
    %b = loom.layer 0 (%a) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %b : tensor<1x8x16xbf16>
  }
}

// -----

// Sharding written on the ops must agree with the module's tp, which the
// passes lay out and price: a split op ...
module attributes {loom.parallel = #loom.parallel<tp = 2>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @split_edit(%ids: tensor<1x8xi32>) -> tensor<1x8x16xbf16> {
    // expected-error @+1 {{'loom.embed' op is sharded 4 ways, but the module's tensor parallelism (loom.parallel's tp) is 2; loom-partition-layers needs them to agree}}
    %x = loom.embed %ids {vocab = 64, loom.split = #loom.split<vocab, 4>} : tensor<1x8xi32> -> tensor<1x8x16xbf16>
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    %b = loom.layer 1 (%a) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %b : tensor<1x8x16xbf16>
  }
}

// -----

// ... or a collective's group.
module attributes {loom.parallel = #loom.parallel<tp = 2>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @group_edit(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      // expected-error @+1 {{'loom.all_reduce' op is sharded 4 ways, but the module's tensor parallelism (loom.parallel's tp) is 2; loom-partition-layers needs them to agree}}
      %r = loom.all_reduce %in {group = "tp", group_size = 4} : tensor<1x8x16xbf16> -> tensor<1x8x16xbf16>
      loom.yield %r : tensor<1x8x16xbf16>
    }
    %b = loom.layer 1 (%a) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %b : tensor<1x8x16xbf16>
  }
}

// -----

// For the option runs above: tp = 2 on v5e-4 (HUGEDP) and a 3-layer model
// on v5e-16 (TILE); with stages=2 they plan.
module attributes {loom.parallel = #loom.parallel<tp = 2>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @tp2(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    %b = loom.layer 1 (%a) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %b : tensor<1x8x16xbf16>
  }
}

// -----

module attributes {loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
  func.func @three(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    %b = loom.layer 1 (%a) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    %c = loom.layer 2 (%b) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %c : tensor<1x8x16xbf16>
  }
}

// -----

// loom-shard-heads takes any degree the heads divide; 3 does not divide
// v5e-16's 16 chips, so no stage count lays it out.
// expected-error @+1 {{tensor-parallel 3 x stages 2 = 6 chips per replica does not divide v5e-16's 16, which replicas tile; no stage count does with tp 3, which does not divide 16}}
module attributes {loom.parallel = #loom.parallel<tp = 3>, loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
  func.func @tp3(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    %b = loom.layer 1 (%a) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %b : tensor<1x8x16xbf16>
  }
}

// -----

// On several slices joined by the DCN a replica lies within one slice or
// spans whole slices, a number dividing the slices (the rest data-parallel
// over the DCN): tp 16 x 2 stages would span 2 of 3 v5e-16 slices.
// expected-error @+1 {{tensor-parallel 16 x stages 2 = 32 chips per replica does not tile 3xv5e-16: a replica lies within a slice of 16 chips and divides it, or spans whole slices with an equal run of stages on each, their number dividing the 3 slices; stage counts that do with tp 16: 1, 3}}
module attributes {loom.parallel = #loom.parallel<tp = 16>, loom.target = #loom.target<"tpu-v5e", topology = "3xv5e-16">} {
  func.func @dcn(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    %b = loom.layer 1 (%a) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      loom.yield %in : tensor<1x8x16xbf16>
    }
    return %b : tensor<1x8x16xbf16>
  }
}
