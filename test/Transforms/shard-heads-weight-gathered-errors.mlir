// What loom-shard-heads weight-gathered refuses: each error is at the op
// (or function) that cannot split and names the group sizes that can.
// RUN: loom-opt %s -split-input-file -verify-diagnostics --loom-shard-heads="tp=4 weight-gathered=true"
// RUN: not loom-opt %s -split-input-file --loom-shard-heads="tp=3 weight-gathered=true" 2>&1 | FileCheck %s --check-prefix=THREE
// RUN: not loom-opt %s -split-input-file --loom-shard-heads="tp=8 weight-gathered=true" 2>&1 | FileCheck %s --check-prefix=EIGHT
// RUN: not loom-opt %s -split-input-file --loom-shard-heads="tp=1 weight-gathered=true" 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: not loom-opt %s -split-input-file --loom-shard-heads="tp=4 tp-x=2 weight-gathered=true" 2>&1 | FileCheck %s --check-prefix=TWOD

// The first module has a batch of 4 on v5e-8: groups of 2 and 4 work.
// THREE: error: weight-gathered cannot split the batch of 4 over tp = 3 chips: groups of 3 do not tile the 8 chips of v5e-8; valid group sizes on v5e-8: 2, 4
// EIGHT: error: weight-gathered cannot split the batch of 4 over tp = 8 chips: each chip runs an equal share of the sequences; valid group sizes on v5e-8: 2, 4
// ONE: error: weight-gathered cannot split the batch of 4 over tp = 1 chips: it needs a group of at least 2; valid group sizes on v5e-8: 2, 4
// TWOD: error: weight-gathered splits the batch over the whole tp group and gathers whole layers' weights; drop tp-x

// Splits 4 ways: no diagnostic.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
  func.func @ok(%x: tensor<4x8x128xbf16>) -> tensor<4x8x128xbf16> {
    %y = loom.layer 0 (%x) : (tensor<4x8x128xbf16>) -> tensor<4x8x128xbf16> {
    ^bb0(%in: tensor<4x8x128xbf16>):
      %n = loom.rms_norm %in : tensor<4x8x128xbf16>
      %u = loom.linear up %n : tensor<4x8x128xbf16> -> tensor<4x8x256xbf16>
      %a = loom.activation gelu %u : tensor<4x8x256xbf16>
      %d = loom.linear down %a : tensor<4x8x256xbf16> -> tensor<4x8x128xbf16>
      %r = loom.add %in, %d : tensor<4x8x128xbf16>, tensor<4x8x128xbf16>
      loom.yield %r : tensor<4x8x128xbf16>
    }
    return %y : tensor<4x8x128xbf16>
  }
}

// -----

// A batch of 2 does not split over 4 chips.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
  // expected-error @+1 {{weight-gathered cannot split the batch of 2 over tp = 4 chips: each chip runs an equal share of the sequences; valid group sizes on v5e-8: 2}}
  func.func @small(%x: tensor<2x8x128xbf16>) -> tensor<2x8x128xbf16> {
    %y = loom.layer 0 (%x) : (tensor<2x8x128xbf16>) -> tensor<2x8x128xbf16> {
    ^bb0(%in: tensor<2x8x128xbf16>):
      %u = loom.linear up %in : tensor<2x8x128xbf16> -> tensor<2x8x128xbf16>
      loom.yield %u : tensor<2x8x128xbf16>
    }
    return %y : tensor<2x8x128xbf16>
  }
}

// -----

// A batch of 1 splits nowhere.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
  // expected-error @+1 {{valid group sizes on v5e-8: none (a batch of 1 does not split over 2 or more chips)}}
  func.func @one(%x: tensor<1x8x128xbf16>) -> tensor<1x8x128xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x8x128xbf16>) -> tensor<1x8x128xbf16> {
    ^bb0(%in: tensor<1x8x128xbf16>):
      %u = loom.linear up %in : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
      loom.yield %u : tensor<1x8x128xbf16>
    }
    return %y : tensor<1x8x128xbf16>
  }
}

// -----

// A tensor that does not lead with the batch cannot be split by batch.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
  func.func @table(%x: tensor<4x8x128xbf16>) -> tensor<4x8x128xbf16> {
    %y = loom.layer 0 (%x) : (tensor<4x8x128xbf16>) -> tensor<4x8x128xbf16> {
    ^bb0(%in: tensor<4x8x128xbf16>):
      // expected-error @+1 {{weight-gathered splits dim 0, the batch of 4, of every tensor, but this op's result does not lead with it}}
      %t = loom.param "scale_shift_table" : tensor<768xbf16>
      %u = loom.linear up %in : tensor<4x8x128xbf16> -> tensor<4x8x128xbf16>
      loom.yield %u : tensor<4x8x128xbf16>
    }
    return %y : tensor<4x8x128xbf16>
  }
}

// -----

// Already sharded.
// expected-error @+1 {{the module is already sharded (loom.parallel = #loom.parallel<tp = 2>)}}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>, loom.parallel = #loom.parallel<tp = 2>} {
}

// -----

// A MoE layer's router, experts and combine move token copies through a
// dispatch buffer (their rules' expert groups): the router is named.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
  func.func @moe(%x: tensor<4x8x64xbf16>) -> tensor<4x8x64xbf16> {
    %y = loom.layer 0 (%x) : (tensor<4x8x64xbf16>) -> tensor<4x8x64xbf16> {
    ^bb0(%in: tensor<4x8x64xbf16>):
      // expected-error @+1 {{weight-gathered gathers dense layers' weights; MoE layers are not split this way (use tp or ep)}}
      %b = loom.moe_route %in {experts = 8, top_k = 2} : tensor<4x8x64xbf16> -> tensor<1x64x64xbf16>
      %e = loom.moe_experts %b {experts = 8, top_k = 2, expert_inter = 32, tokens = 32} : tensor<1x64x64xbf16>
      %c = loom.moe_combine %e : tensor<1x64x64xbf16> -> tensor<4x8x64xbf16>
      loom.yield %c : tensor<4x8x64xbf16>
    }
    return %y : tensor<4x8x64xbf16>
  }
}

// -----

// A combine whose dispatch buffer arrives from outside the layer is one too.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
  func.func @combine(%x: tensor<4x8x64xbf16>, %rows: tensor<1x64x64xbf16>) -> tensor<4x8x64xbf16> {
    %y = loom.layer 0 (%x, %rows) : (tensor<4x8x64xbf16>, tensor<1x64x64xbf16>) -> tensor<4x8x64xbf16> {
    ^bb0(%in: tensor<4x8x64xbf16>, %buf: tensor<1x64x64xbf16>):
      // expected-error @+1 {{weight-gathered gathers dense layers' weights; MoE layers are not split this way (use tp or ep)}}
      %c = loom.moe_combine %buf : tensor<1x64x64xbf16> -> tensor<4x8x64xbf16>
      %r = loom.add %in, %c : tensor<4x8x64xbf16>, tensor<4x8x64xbf16>
      loom.yield %r : tensor<4x8x64xbf16>
    }
    return %y : tensor<4x8x64xbf16>
  }
}
