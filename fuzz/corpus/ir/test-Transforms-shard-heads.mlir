// loom-shard-heads on hand-written models: what each projection, attention
// and norm becomes on one chip of a tp = 2 group, and the collectives it
// inserts (Megatron-LM's column/row pairs; the pass description says why
// each op is split or replicated).
// RUN: loom-opt %s --loom-shard-heads=tp=2 | FileCheck %s
// RUN: loom-opt %s --loom-shard-heads="tp=2 sequence-parallel=true" | FileCheck %s --check-prefix=SP

// The layout is recorded on the module; the target stays.
// CHECK: module attributes {loom.parallel = #loom.parallel<tp = 2>, loom.target = #loom.target<"tpu-v5e", topology = "v5e-4"
// SP: module attributes {loom.parallel = #loom.parallel<tp = 2, sequence_parallel = true>,

// LLaMA: 4 heads of 32 -> 2 per chip, so Q/K/V are 64 wide and attention
// needs no exchange; o and down are split by rows and their partial sums
// all-reduced (two per layer); the MLP's 256 -> 128 per chip. The
// vocabulary of 101 is padded to 102: 51 rows of the embedding per chip
// (partial rows all-reduced) and 51 logits, which stay split.
// CHECK-LABEL: func.func @llama(%arg0: tensor<1x8xi32>) -> tensor<1x8x51xbf16>
// CHECK-NEXT: %[[E:.*]] = loom.embed %arg0 {loom.split = #loom.split<vocab, 2>, vocab = 51 : i64} : tensor<1x8xi32> -> tensor<1x8x128xbf16>
// CHECK-NEXT: %[[X:.*]] = loom.all_reduce %[[E]] {group = "tp", group_size = 2 : i64} : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
// CHECK-NEXT: loom.layer 0(%[[X]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: loom.rms_norm {{.*}} : tensor<1x8x128xbf16>
// CHECK-NEXT: loom.linear q {{.*}} {loom.split = #loom.split<column, 2>} : tensor<1x8x128xbf16> -> tensor<1x8x64xbf16>
// CHECK-NEXT: loom.linear k {{.*}} {loom.split = #loom.split<column, 2>} : tensor<1x8x128xbf16> -> tensor<1x8x64xbf16>
// CHECK-NEXT: loom.linear v {{.*}} {loom.split = #loom.split<column, 2>} : tensor<1x8x128xbf16> -> tensor<1x8x64xbf16>
// CHECK-NEXT: loom.rope {{.*}} {head_dim = 32 : i64} : tensor<1x8x64xbf16>
// CHECK-NEXT: loom.rope {{.*}} {head_dim = 32 : i64} : tensor<1x8x64xbf16>
// CHECK-NEXT: loom.attention {{.*}} {causal, head_dim = 32 : i64, heads = 2 : i64, kv_heads = 2 : i64, loom.split = #loom.split<heads, 2>} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
// CHECK-NEXT: %[[O:.*]] = loom.linear o {{.*}} {loom.split = #loom.split<row, 2>} : tensor<1x8x64xbf16> -> tensor<1x8x128xbf16>
// CHECK-NEXT: loom.all_reduce %[[O]] {group = "tp", group_size = 2 : i64} : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
// CHECK-NEXT: loom.add
// CHECK-NEXT: loom.rms_norm
// CHECK-NEXT: loom.linear gate {{.*}} {loom.split = #loom.split<column, 2>} : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
// CHECK-NEXT: loom.linear up {{.*}} {loom.split = #loom.split<column, 2>} : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
// CHECK-NEXT: loom.swiglu {{.*}} : tensor<1x8x128xbf16>
// CHECK-NEXT: %[[D:.*]] = loom.linear down {{.*}} {loom.split = #loom.split<row, 2>} : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
// CHECK-NEXT: loom.all_reduce %[[D]]
// CHECK-NEXT: loom.add
// CHECK-NEXT: loom.yield
// CHECK-NEXT: }
// CHECK-NEXT: loom.rms_norm {{.*}} : tensor<1x8x128xbf16>
// CHECK-NEXT: loom.linear lm_head {{.*}} {loom.split = #loom.split<vocab, 2>} : tensor<1x8x128xbf16> -> tensor<1x8x51xbf16>
// CHECK-NEXT: return

// Sequence parallelism (Korthikanti et al. 2022): each all-reduce becomes
// a reduce-scatter over the 8 tokens, an all-gather precedes each column
// split, and the norms and residual adds run on 4 tokens per chip.
// SP-LABEL: func.func @llama
// SP: loom.embed
// SP-NEXT: loom.reduce_scatter {{.*}} {dim = 1 : i64, group = "tp", group_size = 2 : i64} : tensor<1x8x128xbf16> -> tensor<1x4x128xbf16>
// SP-NEXT: loom.layer 0
// SP-NEXT: ^bb0
// SP-NEXT: loom.rms_norm {{.*}} : tensor<1x4x128xbf16>
// SP-NEXT: loom.all_gather {{.*}} {dim = 1 : i64, group = "tp", group_size = 2 : i64} : tensor<1x4x128xbf16> -> tensor<1x8x128xbf16>
// SP-NEXT: loom.linear q
// SP-NOT: loom.all_reduce
// SP: loom.linear o
// SP-NEXT: loom.reduce_scatter {{.*}} : tensor<1x8x128xbf16> -> tensor<1x4x128xbf16>
// SP-NEXT: loom.add {{.*}} : tensor<1x4x128xbf16>
// SP-NEXT: loom.rms_norm {{.*}} : tensor<1x4x128xbf16>
// SP-NEXT: loom.all_gather {{.*}} -> tensor<1x8x128xbf16>
// SP-NEXT: loom.linear gate
// SP: loom.linear down
// SP-NEXT: loom.reduce_scatter {{.*}} -> tensor<1x4x128xbf16>
// SP-NEXT: loom.add {{.*}} : tensor<1x4x128xbf16>
// SP: loom.rms_norm {{.*}} : tensor<1x4x128xbf16>
// SP-NEXT: loom.all_gather {{.*}} -> tensor<1x8x128xbf16>
// SP-NEXT: loom.linear lm_head
// SP-NOT: loom.all_reduce

// Multi-query attention: the one KV head cannot be split two ways, so it is
// replicated on both chips, and the K/V projections say so; each chip
// keeps 2 of the 4 query heads.
// CHECK-LABEL: func.func @mqa
// CHECK-NEXT: loom.linear q {{.*}} {loom.split = #loom.split<column, 2>} : tensor<1x8x128xbf16> -> tensor<1x8x64xbf16>
// CHECK-NEXT: loom.linear k {{.*}} {loom.split = #loom.split<column, 1, replicas = 2>} : tensor<1x8x128xbf16> -> tensor<1x8x32xbf16>
// CHECK-NEXT: loom.linear v {{.*}} {loom.split = #loom.split<column, 1, replicas = 2>} : tensor<1x8x128xbf16> -> tensor<1x8x32xbf16>
// CHECK-NEXT: loom.attention {{.*}} {causal, head_dim = 32 : i64, heads = 2 : i64, kv_heads = 1 : i64, loom.split = #loom.split<heads, 2>} : tensor<1x8x64xbf16>, tensor<1x8x32xbf16> -> tensor<1x8x64xbf16>
// CHECK-NEXT: loom.linear o {{.*}} {loom.split = #loom.split<row, 2>}
// CHECK-NEXT: loom.all_reduce

// DiT: patchify, the unpatchify projection and the per-sample SiLU stay
// whole; the adaLN modulation is split by columns and its small per-sample
// output all-gathered, since every chip needs all six shift/scale/gate
// vectors; attention and MLP split as in LLaMA, two all-reduces.
// CHECK-LABEL: func.func @dit
// CHECK-NEXT: loom.patchify {{.*}} -> tensor<2x16x64xbf16>
// CHECK-NEXT: loom.layer 0
// CHECK-NEXT: ^bb0
// CHECK-NEXT: loom.activation silu {{.*}} : tensor<2x64xbf16>
// CHECK-NEXT: %[[M:.*]] = loom.linear modulation {{.*}} {bias, loom.split = #loom.split<column, 2>} : tensor<2x64xbf16> -> tensor<2x192xbf16>
// CHECK-NEXT: loom.all_gather %[[M]] {dim = 1 : i64, group = "tp", group_size = 2 : i64} : tensor<2x192xbf16> -> tensor<2x384xbf16>
// CHECK-NEXT: loom.chunk {{.*}} : tensor<2x384xbf16> -> tensor<2x64xbf16>,
// CHECK: loom.attention {{.*}} {head_dim = 16 : i64, heads = 2 : i64, kv_heads = 2 : i64, loom.split = #loom.split<heads, 2>} : tensor<2x16x32xbf16>
// CHECK-NEXT: loom.linear o {{.*}} {bias, loom.split = #loom.split<row, 2>} : tensor<2x16x32xbf16> -> tensor<2x16x64xbf16>
// CHECK-NEXT: loom.all_reduce
// CHECK: loom.linear fc1 {{.*}} {bias, loom.split = #loom.split<column, 2>} : tensor<2x16x64xbf16> -> tensor<2x16x128xbf16>
// CHECK-NEXT: loom.activation gelu {{.*}} : tensor<2x16x128xbf16>
// CHECK-NEXT: loom.linear fc2 {{.*}} {bias, loom.split = #loom.split<row, 2>}
// CHECK-NEXT: loom.all_reduce
// CHECK: loom.linear proj_out {{.*}} {bias} : tensor<2x16x64xbf16> -> tensor<2x16x32xbf16>
// CHECK-NEXT: loom.unpatchify

// MMDiT joint attention: 2 of 4 heads per stream per chip; the per-head
// QK norms (group 16 = head_dim) stay local; one all-reduce per stream.
// CHECK-LABEL: func.func @mmdit
// CHECK-COUNT-6: loom.linear {{[qkv]}} {{.*}} {loom.split = #loom.split<column, 2>}
// CHECK-NEXT: loom.rms_norm {{.*}} {group = 16 : i64} : tensor<1x16x32xbf16>
// CHECK-NEXT: loom.rms_norm {{.*}} {group = 16 : i64} : tensor<1x16x32xbf16>
// CHECK-NEXT: loom.rms_norm {{.*}} {group = 16 : i64} : tensor<1x8x32xbf16>
// CHECK-NEXT: loom.rms_norm {{.*}} {group = 16 : i64} : tensor<1x8x32xbf16>
// CHECK-NEXT: loom.joint_attention {{.*}} {head_dim = 16 : i64, heads = 2 : i64, loom.split = #loom.split<heads, 2>} : tensor<1x16x32xbf16>, tensor<1x8x32xbf16>
// CHECK-NEXT: loom.linear o {{.*}} {bias, loom.split = #loom.split<row, 2>} : tensor<1x16x32xbf16> -> tensor<1x16x64xbf16>
// CHECK-NEXT: loom.linear o {{.*}} {bias, loom.split = #loom.split<row, 2>} : tensor<1x8x32xbf16> -> tensor<1x8x64xbf16>
// CHECK-NEXT: loom.all_reduce {{.*}} : tensor<1x16x64xbf16>
// CHECK-NEXT: loom.all_reduce {{.*}} : tensor<1x8x64xbf16>
// CHECK-NEXT: return

// A Flux single block: the fused output projection takes the split
// attention (32 of 64) and the split MLP branch (128 of 256) together, one
// row split and one all-reduce.
// CHECK-LABEL: func.func @single
// CHECK: loom.concat {{.*}} {dim = 2 : i64} : (tensor<1x16x32xbf16>, tensor<1x16x128xbf16>) -> tensor<1x16x160xbf16>
// CHECK-NEXT: loom.linear o {{.*}} {bias, loom.split = #loom.split<row, 2>} : tensor<1x16x160xbf16> -> tensor<1x16x64xbf16>
// CHECK-NEXT: loom.all_reduce
// CHECK-NEXT: return

module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  // A LLaMA-style model: embedding, one layer, final norm and LM head; a
  // vocabulary of 101, which does not split in two.
  func.func @llama(%ids: tensor<1x8xi32>) -> tensor<1x8x101xbf16> {
    %x = loom.embed %ids {vocab = 101} : tensor<1x8xi32> -> tensor<1x8x128xbf16>
    %h = loom.layer 0 (%x) {kind = "llama"} : (tensor<1x8x128xbf16>) -> tensor<1x8x128xbf16> {
    ^bb0(%in: tensor<1x8x128xbf16>):
      %n = loom.rms_norm %in : tensor<1x8x128xbf16>
      %q = loom.linear q %n : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
      %k = loom.linear k %n : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
      %v = loom.linear v %n : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
      %qr = loom.rope %q {head_dim = 32} : tensor<1x8x128xbf16>
      %kr = loom.rope %k {head_dim = 32} : tensor<1x8x128xbf16>
      %a = loom.attention %qr, %kr, %v {heads = 4, kv_heads = 4, head_dim = 32, causal} : tensor<1x8x128xbf16>, tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
      %o = loom.linear o %a : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
      %r1 = loom.add %in, %o : tensor<1x8x128xbf16>, tensor<1x8x128xbf16>
      %n2 = loom.rms_norm %r1 : tensor<1x8x128xbf16>
      %g = loom.linear gate %n2 : tensor<1x8x128xbf16> -> tensor<1x8x256xbf16>
      %u = loom.linear up %n2 : tensor<1x8x128xbf16> -> tensor<1x8x256xbf16>
      %s = loom.swiglu %g, %u : tensor<1x8x256xbf16>
      %d = loom.linear down %s : tensor<1x8x256xbf16> -> tensor<1x8x128xbf16>
      %r2 = loom.add %r1, %d : tensor<1x8x128xbf16>, tensor<1x8x128xbf16>
      loom.yield %r2 : tensor<1x8x128xbf16>
    }
    %f = loom.rms_norm %h : tensor<1x8x128xbf16>
    %logits = loom.linear lm_head %f : tensor<1x8x128xbf16> -> tensor<1x8x101xbf16>
    return %logits : tensor<1x8x101xbf16>
  }

  // Multi-query attention: 4 query heads share one KV head.
  func.func @mqa(%x: tensor<1x8x128xbf16>) -> tensor<1x8x128xbf16> {
    %q = loom.linear q %x : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
    %k = loom.linear k %x : tensor<1x8x128xbf16> -> tensor<1x8x32xbf16>
    %v = loom.linear v %x : tensor<1x8x128xbf16> -> tensor<1x8x32xbf16>
    %a = loom.attention %q, %k, %v {heads = 4, kv_heads = 1, head_dim = 32, causal} : tensor<1x8x128xbf16>, tensor<1x8x32xbf16> -> tensor<1x8x128xbf16>
    %o = loom.linear o %a : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
    return %o : tensor<1x8x128xbf16>
  }

  // A DiT block with adaLN-zero conditioning, patchify and unpatchify.
  func.func @dit(%latent: tensor<2x4x8x8xbf16>, %c: tensor<2x64xbf16>) -> tensor<2x8x8x8xbf16> {
    %x = loom.patchify %latent {patch_size = 2} : tensor<2x4x8x8xbf16> -> tensor<2x16x64xbf16>
    %h = loom.layer 0 (%x, %c) {kind = "dit"} : (tensor<2x16x64xbf16>, tensor<2x64xbf16>) -> tensor<2x16x64xbf16> {
    ^bb0(%in: tensor<2x16x64xbf16>, %cond: tensor<2x64xbf16>):
      %sc = loom.activation silu %cond : tensor<2x64xbf16>
      %mod = loom.linear modulation %sc {bias} : tensor<2x64xbf16> -> tensor<2x384xbf16>
      %shift1, %scale1, %gate1, %shift2, %scale2, %gate2 = loom.chunk %mod : tensor<2x384xbf16> -> tensor<2x64xbf16>, tensor<2x64xbf16>, tensor<2x64xbf16>, tensor<2x64xbf16>, tensor<2x64xbf16>, tensor<2x64xbf16>
      %n1 = loom.layer_norm %in {affine = false} : tensor<2x16x64xbf16>
      %m1 = loom.modulate %n1, %shift1, %scale1 : tensor<2x16x64xbf16>, tensor<2x64xbf16>
      %q = loom.linear q %m1 {bias} : tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
      %k = loom.linear k %m1 {bias} : tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
      %v = loom.linear v %m1 {bias} : tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
      %a = loom.attention %q, %k, %v {heads = 4, kv_heads = 4, head_dim = 16} : tensor<2x16x64xbf16>, tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
      %o = loom.linear o %a {bias} : tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
      %g1 = loom.gate %o, %gate1 : tensor<2x16x64xbf16>, tensor<2x64xbf16>
      %r1 = loom.add %in, %g1 : tensor<2x16x64xbf16>, tensor<2x16x64xbf16>
      %n2 = loom.layer_norm %r1 {affine = false} : tensor<2x16x64xbf16>
      %m2 = loom.modulate %n2, %shift2, %scale2 : tensor<2x16x64xbf16>, tensor<2x64xbf16>
      %f1 = loom.linear fc1 %m2 {bias} : tensor<2x16x64xbf16> -> tensor<2x16x256xbf16>
      %act = loom.activation gelu %f1 : tensor<2x16x256xbf16>
      %f2 = loom.linear fc2 %act {bias} : tensor<2x16x256xbf16> -> tensor<2x16x64xbf16>
      %g2 = loom.gate %f2, %gate2 : tensor<2x16x64xbf16>, tensor<2x64xbf16>
      %r2 = loom.add %r1, %g2 : tensor<2x16x64xbf16>, tensor<2x16x64xbf16>
      loom.yield %r2 : tensor<2x16x64xbf16>
    }
    %p = loom.linear proj_out %h {bias} : tensor<2x16x64xbf16> -> tensor<2x16x32xbf16>
    %img = loom.unpatchify %p {patch_size = 2} : tensor<2x16x32xbf16> -> tensor<2x8x8x8xbf16>
    return %img : tensor<2x8x8x8xbf16>
  }

  // An MMDiT (SD3/Flux double block) joint attention with per-head QK
  // norms, and a Flux single block whose output projection takes the
  // attention and the MLP branch together.
  func.func @mmdit(%img: tensor<1x16x64xbf16>, %txt: tensor<1x8x64xbf16>) -> (tensor<1x16x64xbf16>, tensor<1x8x64xbf16>) {
    %qi = loom.linear q %img : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    %ki = loom.linear k %img : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    %vi = loom.linear v %img : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    %qt = loom.linear q %txt : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
    %kt = loom.linear k %txt : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
    %vt = loom.linear v %txt : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
    %qin = loom.rms_norm %qi {group = 16} : tensor<1x16x64xbf16>
    %kin = loom.rms_norm %ki {group = 16} : tensor<1x16x64xbf16>
    %qtn = loom.rms_norm %qt {group = 16} : tensor<1x8x64xbf16>
    %ktn = loom.rms_norm %kt {group = 16} : tensor<1x8x64xbf16>
    %ai, %at = loom.joint_attention %qin, %kin, %vi, %qtn, %ktn, %vt {heads = 4, head_dim = 16} : tensor<1x16x64xbf16>, tensor<1x8x64xbf16>
    %oi = loom.linear o %ai {bias} : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    %ot = loom.linear o %at {bias} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
    return %oi, %ot : tensor<1x16x64xbf16>, tensor<1x8x64xbf16>
  }

  func.func @single(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
    %q = loom.linear q %x : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    %a = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16} : tensor<1x16x64xbf16>, tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    %m = loom.linear fc1 %x : tensor<1x16x64xbf16> -> tensor<1x16x256xbf16>
    %g = loom.activation gelu_tanh %m : tensor<1x16x256xbf16>
    %c = loom.concat %a, %g {dim = 2} : (tensor<1x16x64xbf16>, tensor<1x16x256xbf16>) -> tensor<1x16x320xbf16>
    %o = loom.linear o %c {bias} : tensor<1x16x320xbf16> -> tensor<1x16x64xbf16>
    return %o : tensor<1x16x64xbf16>
  }
}
