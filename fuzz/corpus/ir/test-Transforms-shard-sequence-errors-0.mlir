// RUN: loom-opt %s -split-input-file -verify-diagnostics --loom-shard-sequence=sp=3
// RUN: not loom-opt %s -split-input-file --loom-shard-sequence="sp=2 mode=spiral" 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not loom-opt %s -split-input-file --loom-shard-sequence=sp=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not loom-opt %s -split-input-file --loom-shard-heads="tp=2 sequence-parallel=true" --loom-shard-sequence=sp=2 2>&1 | FileCheck %s --check-prefix=MEGATRON

// MODE: error: unknown mode 'spiral'; expected ulysses or ring
// ZERO: error: sp must be at least 1, got 0; valid degrees: 1, 2, 4
// MEGATRON: error: Megatron sequence parallelism (loom-shard-heads sequence-parallel) already splits the sequence over the tensor-parallel group; choose one

// Four heads do not split three ways (96 tokens do): the error names the
// degrees that do on the 4 chips of v5e-4.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @heads(%x: tensor<1x96x256xbf16>) -> tensor<1x96x256xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x96x256xbf16>) -> tensor<1x96x256xbf16> {
    ^bb0(%in: tensor<1x96x256xbf16>):
      %q = loom.linear q %in : tensor<1x96x256xbf16> -> tensor<1x96x256xbf16>
      // expected-error @+1 {{cannot split the sequence 3 ways: sp = 3 does not divide the 4 heads and 4 KV heads this attention holds per chip; valid sequence-parallel degrees on v5e-4 with tp = 1: 1, 2, 4}}
      %a = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 64} : tensor<1x96x256xbf16>, tensor<1x96x256xbf16> -> tensor<1x96x256xbf16>
      loom.yield %a : tensor<1x96x256xbf16>
    }
    return %y : tensor<1x96x256xbf16>
  }
}

