// loom-shard-heads tp-x: 2-D weight-stationary tensor parallelism (Pope et
// al. 2023, section 3.2.2) on a hand-written LLaMA layer, tp = 8 as a 2 x 4
// block of v5e-16: heads and d_ff split 4 ways over each row of the block
// (tp_y), d_model 2 ways over each column (tp_x).
// RUN: loom-opt %s --loom-shard-heads="tp=8 tp-x=2" | FileCheck %s
// RUN: loom-opt %s --loom-shard-heads="tp=4 tp-x=2" | FileCheck %s --check-prefix=HEADS

// With 2 heads a row (tp = 4 as 2 x 2) the heads split over tp_x too (Pope
// et al.'s form): q, k and v are reduce-scattered by heads, each chip
// attends over one head, and the output is gathered back before o.
// q, k and v are one combined collective (one fixed cost, not three).
// HEADS: %[[Q:.*]]:3 = loom.combined_reduce_scatter {{.*}} {dim = 2 : i64, group = "tp_x", group_size = 2 : i64} : (tensor<1x8x64xbf16>, tensor<1x8x64xbf16>, tensor<1x8x64xbf16>) -> (tensor<1x8x32xbf16>, tensor<1x8x32xbf16>, tensor<1x8x32xbf16>)
// HEADS-NEXT: loom.rope %[[Q]]#0 {head_dim = 32 : i64} : tensor<1x8x32xbf16>
// HEADS-NEXT: loom.rope
// HEADS-NEXT: %[[A:.*]] = loom.attention {{.*}} heads = 1 : i64, kv_heads = 1 : i64, loom.split = #loom.split<heads, 2 x 2>} : tensor<1x8x32xbf16>, tensor<1x8x32xbf16> -> tensor<1x8x32xbf16>
// HEADS-NEXT: %[[G:.*]] = loom.all_gather %[[A]] {dim = 2 : i64, group = "tp_x", group_size = 2 : i64} : tensor<1x8x32xbf16> -> tensor<1x8x64xbf16>
// HEADS-NEXT: loom.linear o %[[G]] {loom.split = #loom.split<row, 2 x 2>}

// CHECK: module attributes {loom.parallel = #loom.parallel<tp = 8, tp_x = 2>

// The ops before the layers split over tp_y only (4 ways), then the
// residual enters the layers as each chip's 64 of d_model's 128.
// CHECK-LABEL: func.func @llama
// CHECK-NEXT: loom.embed {{.*}}#loom.split<vocab, 4>
// CHECK-NEXT: %[[E:.*]] = loom.all_reduce {{.*}}group = "tp_y", group_size = 4 : i64} : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
// CHECK-NEXT: %[[X:.*]] = loom.local_shard %[[E]] {dim = 2 : i64, group = "tp_x", group_size = 2 : i64} : tensor<1x8x128xbf16> -> tensor<1x8x64xbf16>
// CHECK-NEXT: loom.layer 0(%[[X]]) {{.*}} : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16>
// The norm's per-token statistic is summed over tp_x, then it scales 64.
// CHECK: %[[S:.*]] = loom.slice {{.*}} : tensor<1x8x64xbf16> -> tensor<1x8x2xbf16>
// CHECK-NEXT: loom.all_reduce %[[S]] {group = "tp_x", group_size = 2 : i64} : tensor<1x8x2xbf16>
// CHECK-NEXT: loom.rms_norm {{.*}} {loom.split = #loom.split<column, 1 x 2>} : tensor<1x8x64xbf16>
// q, k, v: 64 of d_model in, one head of 32 out, partial sums over tp_x
// (one head a row does not split over tp_x: all-reduced), the three in
// one combined collective.
// CHECK-NEXT: %[[Q:.*]] = loom.linear q {{.*}} {loom.split = #loom.split<column, 4 x 2>} : tensor<1x8x64xbf16> -> tensor<1x8x32xbf16>
// CHECK-NEXT: %[[K:.*]] = loom.linear k {{.*}} {loom.split = #loom.split<column, 4 x 2>} : tensor<1x8x64xbf16> -> tensor<1x8x32xbf16>
// CHECK-NEXT: %[[V:.*]] = loom.linear v {{.*}} {loom.split = #loom.split<column, 4 x 2>} : tensor<1x8x64xbf16> -> tensor<1x8x32xbf16>
// CHECK-NEXT: loom.combined_all_reduce %[[Q]], %[[K]], %[[V]] {group = "tp_x", group_size = 2 : i64} : (tensor<1x8x32xbf16>, tensor<1x8x32xbf16>, tensor<1x8x32xbf16>) -> (tensor<1x8x32xbf16>, tensor<1x8x32xbf16>, tensor<1x8x32xbf16>)
// CHECK-NEXT: loom.rope
// CHECK-NEXT: loom.rope
// CHECK-NEXT: loom.attention {{.*}} heads = 1 : i64, kv_heads = 1 : i64, loom.split = #loom.split<heads, 4>} : tensor<1x8x32xbf16>, tensor<1x8x32xbf16> -> tensor<1x8x32xbf16>
// o: the head in, 64 of d_model out, partial sums over tp_y.
// CHECK-NEXT: %[[O:.*]] = loom.linear o {{.*}} {loom.split = #loom.split<row, 4 x 2>} : tensor<1x8x32xbf16> -> tensor<1x8x64xbf16>
// CHECK-NEXT: loom.all_reduce %[[O]] {group = "tp_y", group_size = 4 : i64} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
// CHECK-NEXT: loom.add {{.*}} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16>
// CHECK-NEXT: loom.slice
// CHECK-NEXT: loom.all_reduce {{.*}} {group = "tp_x"
// CHECK-NEXT: loom.rms_norm
// The MLP: 256 of d_ff split 4 ways, 128 of d_model 2 ways. Gate's and
// up's partial sums are reduce-scattered over tp_x by d_ff (Pope et al.'s
// BLF_xyz) in one combined collective, the SwiGLU runs once on each
// chip's 32, and its output is gathered back over tp_x before down.
// CHECK-NEXT: loom.linear gate {{.*}} {loom.split = #loom.split<column, 4 x 2>} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
// CHECK-NEXT: loom.linear up {{.*}} {loom.split = #loom.split<column, 4 x 2>} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
// CHECK-NEXT: %[[GU:.*]]:2 = loom.combined_reduce_scatter {{.*}} {dim = 2 : i64, group = "tp_x", group_size = 2 : i64} : (tensor<1x8x64xbf16>, tensor<1x8x64xbf16>) -> (tensor<1x8x32xbf16>, tensor<1x8x32xbf16>)
// CHECK-NEXT: %[[S:.*]] = loom.swiglu %[[GU]]#0, %[[GU]]#1 : tensor<1x8x32xbf16>
// CHECK-NEXT: %[[F:.*]] = loom.all_gather %[[S]] {dim = 2 : i64, group = "tp_x", group_size = 2 : i64} : tensor<1x8x32xbf16> -> tensor<1x8x64xbf16>
// CHECK-NEXT: loom.linear down %[[F]] {loom.split = #loom.split<row, 4 x 2>} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
// CHECK-NEXT: loom.all_reduce {{.*}} {group = "tp_y", group_size = 4 : i64} : tensor<1x8x64xbf16>
// CHECK-NEXT: loom.add
// CHECK-NEXT: loom.yield {{.*}} : tensor<1x8x64xbf16>
// CHECK-NEXT: }
// The layers' result is gathered whole over tp_x for the final norm and
// the LM head, which splits the vocabulary over tp_y.
// CHECK-NEXT: loom.all_gather {{.*}} {dim = 2 : i64, group = "tp_x", group_size = 2 : i64} : tensor<1x8x64xbf16> -> tensor<1x8x128xbf16>
// CHECK-NEXT: loom.rms_norm {{.*}} : tensor<1x8x128xbf16>
// CHECK-NEXT: loom.linear lm_head {{.*}} {loom.split = #loom.split<vocab, 4>} : tensor<1x8x128xbf16> -> tensor<1x8x26xbf16>

module attributes {loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
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
}
