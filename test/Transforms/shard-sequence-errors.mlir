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

// -----

// 64 tokens do not split three ways; twelve heads would. Valid: the divisors
// of 64 that divide 12 and fit on 4 chips.
// expected-error @+1 {{cannot split the sequence 3 ways: sp = 3 does not divide the 64 tokens each layer sees; valid sequence-parallel degrees on v5e-4 with tp = 1: 1, 2, 4}}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @tokens(%x: tensor<1x64x768xbf16>) -> tensor<1x64x768xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x64x768xbf16>) -> tensor<1x64x768xbf16> {
    ^bb0(%in: tensor<1x64x768xbf16>):
      %q = loom.linear q %in : tensor<1x64x768xbf16> -> tensor<1x64x768xbf16>
      %a = loom.attention %q, %q, %q {heads = 12, kv_heads = 12, head_dim = 64} : tensor<1x64x768xbf16>, tensor<1x64x768xbf16> -> tensor<1x64x768xbf16>
      loom.yield %a : tensor<1x64x768xbf16>
    }
    return %y : tensor<1x64x768xbf16>
  }
}

// -----

// Ulysses splits MMDiT joint attention's heads too: four do not split three
// ways (96 image tokens do; the 8 text tokens need not, they can stay whole).
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @joint(%img: tensor<1x96x256xbf16>, %txt: tensor<1x8x256xbf16>) -> tensor<1x96x256xbf16> {
    %y:2 = loom.layer 0 (%img, %txt) : (tensor<1x96x256xbf16>, tensor<1x8x256xbf16>) -> (tensor<1x96x256xbf16>, tensor<1x8x256xbf16>) {
    ^bb0(%i: tensor<1x96x256xbf16>, %t: tensor<1x8x256xbf16>):
      // expected-error @+1 {{cannot split the sequence 3 ways: sp = 3 does not divide the 4 heads and 4 KV heads this attention holds per chip; valid sequence-parallel degrees on v5e-4 with tp = 1: 1, 2, 4}}
      %a:2 = loom.joint_attention %i, %i, %i, %t, %t, %t {heads = 4, head_dim = 64} : tensor<1x96x256xbf16>, tensor<1x8x256xbf16>
      loom.yield %a#0, %a#1 : tensor<1x96x256xbf16>, tensor<1x8x256xbf16>
    }
    return %y#0 : tensor<1x96x256xbf16>
  }
}

// -----

// After loom-partition-layers the stages are laid out for tp chips: too late.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  // expected-error @+1 {{loom-shard-sequence runs before loom-partition-layers (the stages are laid out for tp x sp chips)}}
  func.func @late(%x: tensor<1x96x256xbf16>) -> tensor<1x96x256xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [96]>} {
    %y = loom.layer 0 (%x) {stage = 0} : (tensor<1x96x256xbf16>) -> tensor<1x96x256xbf16> {
    ^bb0(%in: tensor<1x96x256xbf16>):
      %a = loom.attention %in, %in, %in {heads = 4, kv_heads = 4, head_dim = 64} : tensor<1x96x256xbf16>, tensor<1x96x256xbf16> -> tensor<1x96x256xbf16>
      loom.yield %a : tensor<1x96x256xbf16>
    }
    return %y : tensor<1x96x256xbf16>
  }
}

// -----

// MLA's latent is shared by every head: there are no heads to trade the
// sequence for (the attention's rule has no heads in its keys).
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @latent(%q: tensor<1x96x96xbf16>, %c: tensor<1x96x40xbf16>) -> tensor<1x96x64xbf16> {
    %y = loom.layer 0 (%q, %c) : (tensor<1x96x96xbf16>, tensor<1x96x40xbf16>) -> tensor<1x96x64xbf16> {
    ^bb0(%in: tensor<1x96x96xbf16>, %lat: tensor<1x96x40xbf16>):
      // expected-error @+1 {{cannot split the sequence 3 ways: Ulysses over latent (MLA) attention is not implemented; valid sequence-parallel degrees on v5e-4 with tp = 1: 1}}
      %a = loom.latent_attention %in, %lat {heads = 4, kv_lora_rank = 32, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, causal} : tensor<1x96x96xbf16>, tensor<1x96x40xbf16> -> tensor<1x96x64xbf16>
      loom.yield %a : tensor<1x96x64xbf16>
    }
    return %y : tensor<1x96x64xbf16>
  }
}

// -----

// A router holds experts (its rule's experts factor): expert parallelism
// splits those tokens. The first MoE op in the layer is named.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @moe(%x: tensor<1x96x64xbf16>) -> tensor<1x96x64xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x96x64xbf16>) -> tensor<1x96x64xbf16> {
    ^bb0(%in: tensor<1x96x64xbf16>):
      // expected-error @+1 {{cannot split the sequence 3 ways: mixture-of-experts layers split their tokens by expert parallelism (loom-shard-experts), not by Ulysses; valid sequence-parallel degrees on v5e-4 with tp = 1: 1}}
      %b = loom.moe_route %in {experts = 8, top_k = 2} : tensor<1x96x64xbf16> -> tensor<1x192x64xbf16>
      %e = loom.moe_experts %b {experts = 8, top_k = 2, expert_inter = 224, tokens = 96} : tensor<1x192x64xbf16>
      %c = loom.moe_combine %e : tensor<1x192x64xbf16> -> tensor<1x96x64xbf16>
      loom.yield %c : tensor<1x96x64xbf16>
    }
    return %y : tensor<1x96x64xbf16>
  }
}

// -----

// Decode: the keys are mostly the cache's (a cached reduction factor), and
// each sequence has one query.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @decode(%x: tensor<1x1x128xbf16>) -> tensor<1x1x128xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x1x128xbf16>) -> tensor<1x1x128xbf16> {
    ^bb0(%in: tensor<1x1x128xbf16>):
      // expected-error @+1 {{cannot split the sequence 3 ways: attention over a KV cache (decode) has one query per sequence, nothing to split; valid sequence-parallel degrees on v5e-4 with tp = 1: 1}}
      %a = loom.attention %in, %in, %in {heads = 2, kv_heads = 2, head_dim = 64, causal, cached = 255} : tensor<1x1x128xbf16>, tensor<1x1x128xbf16> -> tensor<1x1x128xbf16>
      loom.yield %a : tensor<1x1x128xbf16>
    }
    return %y : tensor<1x1x128xbf16>
  }
}
