// RUN: loom-opt %s -split-input-file -verify-diagnostics --loom-shard-sequence="sp=3 mode=ring"

// What ring attention refuses, at the op, naming the valid degrees.

// A ring needs no condition on the heads, only on the tokens: 64 tokens do
// not split three ways; the degrees that do on v5e-4's 4 chips are named
// (2 heads: Ulysses could take 2, never 4; a ring takes 4).
// expected-error @+1 {{cannot split the sequence 3 ways: sp = 3 does not divide the 64 tokens each layer sees; valid sequence-parallel degrees on v5e-4 with tp = 1: 1, 2, 4}}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @tokens(%x: tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16> {
    ^bb0(%in: tensor<1x64x128xbf16>):
      %a = loom.attention %in, %in, %in {heads = 2, kv_heads = 2, head_dim = 64} : tensor<1x64x128xbf16>, tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      loom.yield %a : tensor<1x64x128xbf16>
    }
    return %y : tensor<1x64x128xbf16>
  }
}

// -----

// The op's verifier: a causal ring holds as many queries as keys.
func.func @causal(%q: tensor<1x32x128xbf16>, %k: tensor<1x16x128xbf16>) -> tensor<1x32x128xbf16> {
  // expected-error @+1 {{'loom.ring_attention' op a causal ring expects as many queries as keys in hand, got 32 and 16}}
  %a = loom.ring_attention %q, %k, %k {heads = 2, kv_heads = 2, head_dim = 64, group = "sp", group_size = 2, causal} : tensor<1x32x128xbf16>, tensor<1x16x128xbf16> -> tensor<1x32x128xbf16>
  return %a : tensor<1x32x128xbf16>
}

// -----

// The op's verifier: a ring of one chip is no ring.
func.func @one(%q: tensor<1x32x128xbf16>) -> tensor<1x32x128xbf16> {
  // expected-error @+1 {{'loom.ring_attention' op a ring needs at least 2 chips, got group_size 1}}
  %a = loom.ring_attention %q, %q, %q {heads = 2, kv_heads = 2, head_dim = 64, group = "sp", group_size = 1} : tensor<1x32x128xbf16>, tensor<1x32x128xbf16> -> tensor<1x32x128xbf16>
  return %a : tensor<1x32x128xbf16>
}

// -----

// The op's verifier: a sliding window keeps the latest keys before each
// query, so only a causal ring has one.
func.func @window(%q: tensor<1x32x128xbf16>) -> tensor<1x32x128xbf16> {
  // expected-error @+1 {{'loom.ring_attention' op a sliding window (window = 8) needs a causal ring}}
  %a = loom.ring_attention %q, %q, %q {heads = 2, kv_heads = 2, head_dim = 64, group = "sp", group_size = 2, window = 8} : tensor<1x32x128xbf16>, tensor<1x32x128xbf16> -> tensor<1x32x128xbf16>
  return %a : tensor<1x32x128xbf16>
}

// -----

// The joint attention's ring attributes go together.
func.func @joint_group(%i: tensor<1x32x128xbf16>, %t: tensor<1x6x128xbf16>) -> tensor<1x32x128xbf16> {
  // expected-error @+1 {{'loom.joint_attention' op a ring needs both 'group' and 'group_size'}}
  %a:2 = loom.joint_attention %i, %i, %i, %t, %t, %t {heads = 2, head_dim = 64, group = "sp"} : tensor<1x32x128xbf16>, tensor<1x6x128xbf16>
  return %a#0 : tensor<1x32x128xbf16>
}

// -----

func.func @joint_text(%i: tensor<1x32x128xbf16>, %t: tensor<1x6x128xbf16>) -> tensor<1x32x128xbf16> {
  // expected-error @+1 {{'loom.joint_attention' op 'ring_text' passes the text's K/V round a ring, but the op has no 'group_size'}}
  %a:2 = loom.joint_attention %i, %i, %i, %t, %t, %t {heads = 2, head_dim = 64, ring_text} : tensor<1x32x128xbf16>, tensor<1x6x128xbf16>
  return %a#0 : tensor<1x32x128xbf16>
}

// -----

func.func @joint_one(%i: tensor<1x32x128xbf16>, %t: tensor<1x6x128xbf16>) -> tensor<1x32x128xbf16> {
  // expected-error @+1 {{'loom.joint_attention' op a ring needs at least 2 chips, got group_size 1}}
  %a:2 = loom.joint_attention %i, %i, %i, %t, %t, %t {heads = 2, head_dim = 64, group = "sp", group_size = 1} : tensor<1x32x128xbf16>, tensor<1x6x128xbf16>
  return %a#0 : tensor<1x32x128xbf16>
}
