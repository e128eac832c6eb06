// loom-print-sharding-rules: each op's sharding rule as data, the factors
// each dimension of its operands and results is made of (Shardy's
// notation). The sharding passes read these: an attention over the
// sequence sums over a sequence factor (Ulysses trades it for the heads);
// a cross-attention's keys are another sequence (context); grouped-query
// K/V carry a kv_heads factor (tp replicates their projections when it
// exceeds it); a token-wise op keeps one batch, sequence and features.
// A factor in no dimension is the op's own: the experts a router scores
// and an expert layer holds, the tokens a KV cache holds; a MoE layer's
// dispatch buffer is split by expert groups (expert parallelism's
// all-to-alls); MLA's keys are a latent every head shares; a DiT's
// per-sample ops keep one batch in dim 0.
// RUN: loom-opt %s --loom-print-sharding-rules -verify-diagnostics -o /dev/null

module {
  func.func @llama(%ids: tensor<1x8xi32>) -> tensor<1x8x128xbf16> {
    // expected-remark @+1 {{sharding rule ([i, j])->([i, j, -]) {i=1 batch, j=8 sequence, k=101 vocab reduction}}
    %x = loom.embed %ids {vocab = 101} : tensor<1x8xi32> -> tensor<1x8x128xbf16>
    %h = loom.layer 0 (%x) {kind = "llama"} : (tensor<1x8x128xbf16>) -> tensor<1x8x128xbf16> {
    ^bb0(%in: tensor<1x8x128xbf16>):
      // expected-remark @+1 {{sharding rule ([i, j, k])->([i, j, k]) {i=1 batch, j=8 sequence, k=128 features}}
      %n = loom.rms_norm %in : tensor<1x8x128xbf16>
      // expected-remark @+1 {{sharding rule ([i, j, k])->([i, j, l]) {i=1 batch, j=8 sequence, k=128 d_model reduction, l=128 head_features}}
      %q = loom.linear q %n : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
      // expected-remark @+1 {{sharding rule ([i, j, k])->([i, j, l]) {i=1 batch, j=8 sequence, k=128 d_model reduction, l=64 head_features}}
      %k = loom.linear k %n : tensor<1x8x128xbf16> -> tensor<1x8x64xbf16>
      // expected-remark @+1 {{sharding rule}}
      %v = loom.linear v %n : tensor<1x8x128xbf16> -> tensor<1x8x64xbf16>
      // expected-remark @+1 {{sharding rule ([i, m, j*l], [i, n, k*l], [i, n, k*l])->([i, m, j*l]) {i=1 batch, j=4 heads, k=2 kv_heads, l=32 head_dim, m=8 sequence, n=8 sequence reduction}}
      %a = loom.attention %q, %k, %v {heads = 4, kv_heads = 2, head_dim = 32, causal} : tensor<1x8x128xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x128xbf16>
      // expected-remark @+1 {{sharding rule ([i, j, k])->([i, j, l]) {i=1 batch, j=8 sequence, k=128 head_features reduction, l=128 d_model}}
      %o = loom.linear o %a : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
      // expected-remark @+1 {{sharding rule ([i, j, k], [i, j, k])->([i, j, k]) {i=1 batch, j=8 sequence, k=128 features}}
      %r = loom.add %in, %o : tensor<1x8x128xbf16>, tensor<1x8x128xbf16>
      loom.yield %r : tensor<1x8x128xbf16>
    }
    return %h : tensor<1x8x128xbf16>
  }

  // Cross-attention to 8 text tokens: its keys are the context.
  func.func @cross(%x: tensor<1x64x256xbf16>, %t: tensor<1x8x256xbf16>) -> tensor<1x64x256xbf16> {
    // expected-remark @+1 {{sharding rule ([i, m, j*l], [i, n, k*l], [i, n, k*l])->([i, m, j*l]) {i=1 batch, j=4 heads, k=4 kv_heads, l=64 head_dim, m=64 sequence, n=8 context reduction}}
    %c = loom.attention %x, %t, %t {heads = 4, kv_heads = 4, head_dim = 64, cross} : tensor<1x64x256xbf16>, tensor<1x8x256xbf16> -> tensor<1x64x256xbf16>
    return %c : tensor<1x64x256xbf16>
  }

  // MMDiT joint attention: both streams attend over both, head by head.
  func.func @joint(%i: tensor<1x64x256xbf16>, %t: tensor<1x8x256xbf16>) -> (tensor<1x64x256xbf16>, tensor<1x8x256xbf16>) {
    // expected-remark @+1 {{sharding rule ([i, l, j*k], [i, n, j*k], [i, n, j*k], [i, m, j*k], [i, o, j*k], [i, o, j*k])->([i, l, j*k], [i, m, j*k]) {i=1 batch, j=4 heads, k=64 head_dim, l=64 sequence, m=8 context, n=64 sequence reduction, o=8 context reduction}}
    %img, %txt = loom.joint_attention %i, %i, %i, %t, %t, %t {heads = 4, head_dim = 64} : tensor<1x64x256xbf16>, tensor<1x8x256xbf16>
    return %img, %txt : tensor<1x64x256xbf16>, tensor<1x8x256xbf16>
  }

  // Decode: the cached tokens are summed over too, held by the op.
  func.func @decode(%x: tensor<1x1x128xbf16>) -> tensor<1x1x128xbf16> {
    // expected-remark @+1 {{sharding rule ([i, m, j*l], [i, n, k*l], [i, n, k*l])->([i, m, j*l]) {i=1 batch, j=2 heads, k=2 kv_heads, l=64 head_dim, m=1 sequence, n=1 sequence reduction, o=255 cached reduction}}
    %a = loom.attention %x, %x, %x {heads = 2, kv_heads = 2, head_dim = 64, causal, cached = 255} : tensor<1x1x128xbf16>, tensor<1x1x128xbf16> -> tensor<1x1x128xbf16>
    return %a : tensor<1x1x128xbf16>
  }

  // MLA over a cached latent: heads in q and the output, none in the
  // latent (rank 32 + rope 8), which is summed over.
  func.func @latent(%q: tensor<2x1x96xbf16>, %c: tensor<2x1x40xbf16>) -> tensor<2x1x64xbf16> {
    // expected-remark @+1 {{sharding rule ([i, m, j*k], [i, n, o])->([i, m, j*l]) {i=2 batch, j=4 heads, k=24 head_dim, l=16 head_dim, m=1 sequence, n=1 sequence reduction, o=40 latent reduction, p=128 cached reduction}}
    %a = loom.latent_attention %q, %c {heads = 4, kv_lora_rank = 32, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, causal, cached = 128} : tensor<2x1x96xbf16>, tensor<2x1x40xbf16> -> tensor<2x1x64xbf16>
    return %a : tensor<2x1x64xbf16>
  }

  // A MoE layer: tokens into a dispatch buffer of one row group, through
  // 8 experts of width 224 (summed over), and back into the tokens.
  func.func @moe(%h: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
    // expected-remark @+1 {{sharding rule ([i, j, k])->([m, -, k]) {i=1 batch, j=16 sequence, k=64 d_model, l=8 experts, m=1 expert_groups}}
    %b = loom.moe_route %h {experts = 8, top_k = 2} : tensor<1x16x64xbf16> -> tensor<1x32x64xbf16>
    // expected-remark @+1 {{sharding rule ([j, -, i])->([j, -, i]) {i=64 d_model, j=1 expert_groups, k=8 experts, l=224 d_ff reduction}}
    %e = loom.moe_experts %b {experts = 8, top_k = 2, expert_inter = 224, tokens = 16} : tensor<1x32x64xbf16>
    // expected-remark @+1 {{sharding rule ([l, -, k])->([i, j, k]) {i=1 batch, j=16 sequence, k=64 d_model, l=1 expert_groups}}
    %c = loom.moe_combine %e : tensor<1x32x64xbf16> -> tensor<1x16x64xbf16>
    return %c : tensor<1x16x64xbf16>
  }
  // A DiT's per-sample ops keep the samples apart along dim 0 (the batch
  // loom-split-batch divides) and mix the rest: patchify, the class and
  // timestep embeddings, the [B, F] linears and token-wise ops, a chunk or
  // concat of features, a reshape keeping two rows per sample; adaLN's
  // [B, H] vectors share the tokens' batch and features.
  func.func @conditioning(%latent: tensor<2x4x8x8xbf16>, %t: tensor<2xf32>, %labels: tensor<2xi32>, %res: tensor<4xf32>) -> tensor<2x16x32xbf16> {
    // expected-remark @+1 {{sharding rule ([i, -, -, -])->([i, -, -]) {i=2 batch}}
    %x = loom.patchify %latent {patch_size = 2} : tensor<2x4x8x8xbf16> -> tensor<2x16x32xbf16>
    // expected-remark @+1 {{sharding rule ([i])->([i, -]) {i=2 batch}}
    %y = loom.embed %labels {vocab = 11} : tensor<2xi32> -> tensor<2x32xbf16>
    // expected-remark @+1 {{sharding rule ([i])->([i, -]) {i=2 batch}}
    %f = loom.timestep_embed %t : tensor<2xf32> -> tensor<2x16xbf16>
    // expected-remark @+1 {{sharding rule ([i, -])->([i, -]) {i=2 batch}}
    %c = loom.linear cond %f : tensor<2x16xbf16> -> tensor<2x32xbf16>
    // expected-remark @+1 {{sharding rule ([i])->([i, -]) {i=4 batch}}
    %rf = loom.timestep_embed %res : tensor<4xf32> -> tensor<4x16xbf16>
    // expected-remark @+1 {{sharding rule ([i, -])->([i, -]) {i=2 batch}}
    %r = loom.reshape %rf : tensor<4x16xbf16> -> tensor<2x32xbf16>
    // expected-remark @+1 {{sharding rule ([i, j], [i, j])->([i, j]) {i=2 batch, j=32 features}}
    %s = loom.add %c, %r : tensor<2x32xbf16>, tensor<2x32xbf16>
    // expected-remark @+1 {{sharding rule ([i, -])->([i, -], [i, -]) {i=2 batch}}
    %m0, %m1 = loom.chunk %s : tensor<2x32xbf16> -> tensor<2x16xbf16>, tensor<2x16xbf16>
    // expected-remark @+1 {{sharding rule ([i, -], [i, -])->([i, -]) {i=2 batch}}
    %j = loom.concat %m0, %m1 {dim = 1} : (tensor<2x16xbf16>, tensor<2x16xbf16>) -> tensor<2x32xbf16>
    // expected-remark @+1 {{sharding rule ([i, j, k], [i, k], [i, k])->([i, j, k]) {i=2 batch, j=16 sequence, k=32 features}}
    %h = loom.modulate %x, %j, %y : tensor<2x16x32xbf16>, tensor<2x32xbf16>
    return %h : tensor<2x16x32xbf16>
  }
}
