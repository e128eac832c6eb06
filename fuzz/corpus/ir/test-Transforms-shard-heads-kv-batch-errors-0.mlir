// loom-shard-heads kv-batch refuses what it cannot split, at the op or the
// module, naming the numbers.
// RUN: loom-opt %s -split-input-file -verify-diagnostics --loom-shard-heads="tp=4 kv-batch=2"
// RUN: not loom-opt %s -split-input-file --loom-shard-heads="tp=4 kv-batch=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not loom-opt %s -split-input-file --loom-shard-heads="tp=4 kv-batch=2 sequence-parallel=true" 2>&1 | FileCheck %s --check-prefix=SP
// RUN: not loom-opt %s -split-input-file --loom-shard-heads="tp=4 kv-batch=4" 2>&1 | FileCheck %s --check-prefix=HOLDERS

// ZERO: kv-batch must be at least 1, got 0
// SP: kv-batch splits the KV cache of 1-D tensor parallelism; it runs without tp-x, weight-gathered or sequence-parallel
// HOLDERS: error: kv-batch = 4 must divide the 2 chips that hold each of its 2 KV heads at tp = 4

// A batch of 3 does not split over 2 chips.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @odd(%x: tensor<3x1x256xbf16>) -> tensor<3x1x256xbf16> {
    %h = loom.layer 0 (%x) {kind = "llama"} : (tensor<3x1x256xbf16>) -> tensor<3x1x256xbf16> {
    ^bb0(%in: tensor<3x1x256xbf16>):
      %q = loom.linear q %in : tensor<3x1x256xbf16> -> tensor<3x1x256xbf16>
      %k = loom.linear k %in : tensor<3x1x256xbf16> -> tensor<3x1x64xbf16>
      %v = loom.linear v %in : tensor<3x1x256xbf16> -> tensor<3x1x64xbf16>
      // expected-error @+1 {{kv-batch = 2 splits each KV head's cache by batch, but the batch of 3 does not split 2 ways}}
      %a = loom.attention %q, %k, %v {heads = 8, kv_heads = 2, head_dim = 32, causal, cached = 7} : tensor<3x1x256xbf16>, tensor<3x1x64xbf16> -> tensor<3x1x256xbf16>
      loom.yield %a : tensor<3x1x256xbf16>
    }
    return %h : tensor<3x1x256xbf16>
  }
}

