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

