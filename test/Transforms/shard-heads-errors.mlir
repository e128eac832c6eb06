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

// -----

// Twelve query heads split four ways, but six KV heads neither split nor
// replicate evenly.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
  func.func @kv(%q: tensor<1x8x768xbf16>, %k: tensor<1x8x384xbf16>) -> tensor<1x8x768xbf16> {
    // expected-error @+1 {{cannot split 4 ways: 6 KV heads can be neither split nor replicated evenly over tp = 4; valid tensor-parallel degrees on v5e-16: 1, 2}}
    %a = loom.attention %q, %k, %k {heads = 12, kv_heads = 6, head_dim = 64, causal} : tensor<1x8x768xbf16>, tensor<1x8x384xbf16> -> tensor<1x8x768xbf16>
    return %a : tensor<1x8x768xbf16>
  }
}

// -----

// An MLP 102 wide does not split four ways.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
  func.func @ffn(%x: tensor<1x8x64xbf16>) -> tensor<1x8x102xbf16> {
    // expected-error @+1 {{cannot split 4 ways: output width 102 of this gate projection is not divisible by tp = 4; valid tensor-parallel degrees on v5e-16: 1, 2}}
    %g = loom.linear gate %x : tensor<1x8x64xbf16> -> tensor<1x8x102xbf16>
    return %g : tensor<1x8x102xbf16>
  }
}

// -----

// MLA: its q projection is named first, in program order (the latent every
// head shares is checked where it stands, not with the attentions whose keys
// split by heads).
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
  func.func @latent(%x: tensor<1x8x64xbf16>, %c: tensor<1x8x39xbf16>) -> tensor<1x8x48xbf16> {
    // expected-error @+1 {{cannot split 4 ways: output width 69 of this q projection is not divisible by tp = 4; valid tensor-parallel degrees on v5e-16: 1}}
    %q = loom.linear q %x : tensor<1x8x64xbf16> -> tensor<1x8x69xbf16>
    %a = loom.latent_attention %q, %c {heads = 3, kv_lora_rank = 32, qk_nope_head_dim = 16, qk_rope_head_dim = 7, v_head_dim = 16, causal} : tensor<1x8x69xbf16>, tensor<1x8x39xbf16> -> tensor<1x8x48xbf16>
    return %a : tensor<1x8x48xbf16>
  }
}

// -----

// One chip cannot hold a group of four.
// expected-error @+1 {{tp = 4 needs more chips than v5e-1 has (1); valid degrees: 1}}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [1, 1]>} {
}

// -----

// expected-error @+1 {{loom-shard-heads needs a target}}
module {
}

// -----

// expected-error @+1 {{the module is already sharded (loom.parallel = #loom.parallel<tp = 2>)}}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>, loom.parallel = #loom.parallel<tp = 2>} {
}

