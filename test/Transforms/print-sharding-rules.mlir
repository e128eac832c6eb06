// loom-print-sharding-rules: each op's sharding rule as data, the factors
// each dimension of its operands and results is made of (Shardy's
// notation). The sharding passes read these: an attention over the
// sequence sums over a sequence factor (Ulysses trades it for the heads);
// a cross-attention's keys are another sequence (context); grouped-query
// K/V carry a kv_heads factor (tp replicates their projections when it
// exceeds it); a token-wise op keeps one batch, sequence and features.
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
}
