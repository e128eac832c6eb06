// RUN: loom-opt %s -split-input-file -verify-diagnostics --loom-shard-heads=tp=4
// RUN: not loom-opt %s -split-input-file --loom-shard-heads=tp=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not loom-opt %s -split-input-file --loom-shard-heads="tp=2 sequence-parallel=true" 2>&1 | FileCheck %s --check-prefix=SP
// RUN: not loom-opt %s -split-input-file --loom-shard-heads="tp=1 sequence-parallel=true" 2>&1 | FileCheck %s --check-prefix=SP1

// ZERO: error: tp must be at least 1, got 0; valid degrees on v5e-16: 1, 2
// SP: error: cannot split 2 ways: sequence parallelism splits the sequence of 9 tokens, which is not divisible by tp = 2; valid tensor-parallel degrees on v5e-16: none
// Sequence parallelism with no group to split across is a mistake, not a no-op.
// SP1: error: sequence-parallel splits activations across the tensor-parallel group, so it needs tp >= 2; valid degrees on v5e-16: none

// Six heads do not split four ways.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
  func.func @heads(%x: tensor<1x9x384xbf16>) -> tensor<1x9x384xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x9x384xbf16>) -> tensor<1x9x384xbf16> {
    ^bb0(%in: tensor<1x9x384xbf16>):
      %q = loom.linear q %in : tensor<1x9x384xbf16> -> tensor<1x9x384xbf16>
      %k = loom.linear k %in : tensor<1x9x384xbf16> -> tensor<1x9x384xbf16>
      %v = loom.linear v %in : tensor<1x9x384xbf16> -> tensor<1x9x384xbf16>
      // expected-error @+1 {{cannot split 4 ways: 6 attention heads are not divisible by tp = 4; valid tensor-parallel degrees on v5e-16: 1, 2}}
      %a = loom.attention %q, %k, %v {heads = 6, kv_heads = 6, head_dim = 64, causal} : tensor<1x9x384xbf16>, tensor<1x9x384xbf16> -> tensor<1x9x384xbf16>
      %o = loom.linear o %a : tensor<1x9x384xbf16> -> tensor<1x9x384xbf16>
      loom.yield %o : tensor<1x9x384xbf16>
    }
    return %y : tensor<1x9x384xbf16>
  }
}

