// What convert-loom-to-sched{interleave} refuses: more units zipped than a
// step has (the plan below has one slice), and a count below 1.
// RUN: loom-opt %s -split-input-file -verify-diagnostics --convert-loom-to-sched=interleave=2
// RUN: not loom-opt %s -split-input-file --convert-loom-to-sched=interleave=0 2>&1 | FileCheck %s --check-prefix=ZERO

// ZERO: interleave must be at least 1, got 0
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  // expected-error @+1 {{convert-loom-to-sched: interleave 2 needs at least 2 slices to run zipped, but the plan has 1 (split the sequence with loom-split-tokens)}}
  func.func @one_slice(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [8]>} {
    %a = loom.layer 0 (%x) {stage = 0 : i64} : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      %h = loom.linear up %in : tensor<1x8x16xbf16> -> tensor<1x8x16xbf16>
      loom.yield %h : tensor<1x8x16xbf16>
    }
    return %a : tensor<1x8x16xbf16>
  }
}

