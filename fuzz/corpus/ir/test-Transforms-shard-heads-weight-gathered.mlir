// loom-shard-heads weight-gathered: Pope et al. 2023, section 3.2.3, on a
// hand-written LLaMA layer with a batch of 4 on v5e-8, tp = 4: each chip
// runs the whole layer on one of the 4 sequences, and the layer's weights
// (stored split 4 ways) are all-gathered at its top.
// RUN: loom-opt %s --loom-shard-heads="tp=4 weight-gathered=true" | FileCheck %s
// RUN: loom-opt %s --loom-shard-heads="tp=2 weight-gathered=true" | FileCheck %s --check-prefix=TWO

// CHECK: module attributes {loom.parallel = #loom.parallel<tp = 4, weight_gathered = true>
// The batch splits 4 ways; the embedding and the LM head keep whole
// copies (no split), so no collective runs outside the layers.
// CHECK-LABEL: func.func @llama(%{{.*}}: tensor<1x8xi32>) -> tensor<1x8x101xbf16>
// CHECK-NEXT: loom.embed {{.*}} {vocab = 101 : i64} : tensor<1x8xi32> -> tensor<1x8x128xbf16>
// CHECK-NEXT: loom.layer 0({{.*}}) {kind = "llama"} : (tensor<1x8x128xbf16>) -> tensor<1x8x128xbf16>
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<1x8x128xbf16>):
// The layer's weights: q, k, v, o (4 x 128 x 128), gate, up, down
// (3 x 128 x 256) and two norms' scales (2 x 128), bf16: 328192 bytes.
// CHECK-NEXT: loom.gather_weights {bytes = 328192 : i64, group = "tp", group_size = 4 : i64}
// CHECK-NEXT: loom.rms_norm {{.*}} {loom.split = #loom.split<gathered, 4>} : tensor<1x8x128xbf16>
// Whole projections (no feature split), each on its sequence.
// CHECK-NEXT: loom.linear q {{.*}} {loom.split = #loom.split<gathered, 4>} : tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
// CHECK-NEXT: loom.linear k
// CHECK-NEXT: loom.linear v
// CHECK-NEXT: loom.rope
// CHECK-NEXT: loom.rope
// All heads on every chip.
// CHECK-NEXT: loom.attention {{.*}} {causal, head_dim = 32 : i64, heads = 4 : i64, kv_heads = 4 : i64} : tensor<1x8x128xbf16>, tensor<1x8x128xbf16> -> tensor<1x8x128xbf16>
// CHECK-NEXT: loom.linear o {{.*}} {loom.split = #loom.split<gathered, 4>}
// No all-reduce anywhere in the layer.
// CHECK-NOT: loom.all_reduce
// CHECK: loom.linear down {{.*}} {loom.split = #loom.split<gathered, 4>} : tensor<1x8x256xbf16> -> tensor<1x8x128xbf16>
// CHECK-NOT: loom.all_
// CHECK: loom.linear lm_head {{.*}} : tensor<1x8x128xbf16> -> tensor<1x8x101xbf16>
// CHECK-NEXT: return {{.*}} : tensor<1x8x101xbf16>

// TWO: #loom.parallel<tp = 2, weight_gathered = true>
// TWO: func.func @llama(%{{.*}}: tensor<2x8xi32>) -> tensor<2x8x101xbf16>
// TWO: loom.gather_weights {bytes = 328192 : i64, group = "tp", group_size = 2 : i64}

module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
  func.func @llama(%ids: tensor<4x8xi32>) -> tensor<4x8x101xbf16> {
    %x = loom.embed %ids {vocab = 101} : tensor<4x8xi32> -> tensor<4x8x128xbf16>
    %h = loom.layer 0 (%x) {kind = "llama"} : (tensor<4x8x128xbf16>) -> tensor<4x8x128xbf16> {
    ^bb0(%in: tensor<4x8x128xbf16>):
      %n = loom.rms_norm %in : tensor<4x8x128xbf16>
      %q = loom.linear q %n : tensor<4x8x128xbf16> -> tensor<4x8x128xbf16>
      %k = loom.linear k %n : tensor<4x8x128xbf16> -> tensor<4x8x128xbf16>
      %v = loom.linear v %n : tensor<4x8x128xbf16> -> tensor<4x8x128xbf16>
      %qr = loom.rope %q {head_dim = 32} : tensor<4x8x128xbf16>
      %kr = loom.rope %k {head_dim = 32} : tensor<4x8x128xbf16>
      %a = loom.attention %qr, %kr, %v {heads = 4, kv_heads = 4, head_dim = 32, causal} : tensor<4x8x128xbf16>, tensor<4x8x128xbf16> -> tensor<4x8x128xbf16>
      %o = loom.linear o %a : tensor<4x8x128xbf16> -> tensor<4x8x128xbf16>
      %r1 = loom.add %in, %o : tensor<4x8x128xbf16>, tensor<4x8x128xbf16>
      %n2 = loom.rms_norm %r1 : tensor<4x8x128xbf16>
      %g = loom.linear gate %n2 : tensor<4x8x128xbf16> -> tensor<4x8x256xbf16>
      %u = loom.linear up %n2 : tensor<4x8x128xbf16> -> tensor<4x8x256xbf16>
      %s = loom.swiglu %g, %u : tensor<4x8x256xbf16>
      %d = loom.linear down %s : tensor<4x8x256xbf16> -> tensor<4x8x128xbf16>
      %r2 = loom.add %r1, %d : tensor<4x8x128xbf16>, tensor<4x8x128xbf16>
      loom.yield %r2 : tensor<4x8x128xbf16>
    }
    %f = loom.rms_norm %h : tensor<4x8x128xbf16>
    %logits = loom.linear lm_head %f : tensor<4x8x128xbf16> -> tensor<4x8x101xbf16>
    return %logits : tensor<4x8x101xbf16>
  }
}
