// What loom-shard-heads refuses for a 2-D (tp-x) layout: each error names
// the tp_x x tp_y factorizations that would work.
// RUN: loom-opt %s -split-input-file -verify-diagnostics --loom-shard-heads="tp=8 tp-x=2"
// RUN: not loom-opt %s -split-input-file --loom-shard-heads="tp=8 tp-x=8" 2>&1 | FileCheck %s --check-prefix=WHOLE
// RUN: not loom-opt %s -split-input-file --loom-shard-heads="tp=8 tp-x=3" 2>&1 | FileCheck %s --check-prefix=THREE

// A block of 8 rows by 1 column is no block, and 8 rows do not fit v5e-16's
// 4; 3 rows do not divide 8 chips. The first module splits 2 x 4 and 4 x 2.
// WHOLE: error: tp = 8 does not factor as tp_x = 8 rows by 1 columns of a block that tiles v5e-16 (4x4); valid tp_x x tp_y factorizations: 2 x 4, 4 x 2
// THREE: error: tp-x = 3 does not divide tp = 8; valid tp_x x tp_y factorizations on v5e-16: 2 x 4, 4 x 2

// Splits (tp = 8 as 2 x 4): no diagnostic.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
  func.func @ok(%x: tensor<1x8x128xbf16>) -> tensor<1x8x128xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x8x128xbf16>) -> tensor<1x8x128xbf16> {
    ^bb0(%in: tensor<1x8x128xbf16>):
      %n = loom.rms_norm %in : tensor<1x8x128xbf16>
      %u = loom.linear up %n : tensor<1x8x128xbf16> -> tensor<1x8x256xbf16>
      %a = loom.activation gelu %u : tensor<1x8x256xbf16>
      %d = loom.linear down %a : tensor<1x8x256xbf16> -> tensor<1x8x128xbf16>
      %r = loom.add %in, %d : tensor<1x8x128xbf16>, tensor<1x8x128xbf16>
      loom.yield %r : tensor<1x8x128xbf16>
    }
    return %y : tensor<1x8x128xbf16>
  }
}

