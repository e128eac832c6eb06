// RUN: loom-opt %s | loom-opt | FileCheck %s
// RUN: loom-opt %s --mlir-print-op-generic | loom-opt | FileCheck %s

// Round trip of every loom op, in small but realistic model fragments.

//===----------------------------------------------------------------------===//
// A tiny LLaMA: token embedding, one decoder layer (RMSNorm, RoPE, causal GQA,
// SwiGLU MLP), final norm and LM head.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @tiny_llama
// CHECK-SAME:    (%[[IDS:.*]]: tensor<1x8xi32>) -> tensor<1x8x128xbf16>
// CHECK:         %[[EMB:.*]] = loom.embed %[[IDS]] {vocab = 128 : i64} : tensor<1x8xi32> -> tensor<1x8x64xbf16>
// CHECK:         %[[L0:.*]] = loom.layer 0(%[[EMB]]) {kind = "llama"} : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
// CHECK:         ^bb0(%[[X:.*]]: tensor<1x8x64xbf16>):
// CHECK:           %[[N:.*]] = loom.rms_norm %[[X]] : tensor<1x8x64xbf16>
// CHECK:           %[[Q:.*]] = loom.linear q %[[N]] : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
// CHECK:           %[[K:.*]] = loom.linear k %[[N]] : tensor<1x8x64xbf16> -> tensor<1x8x32xbf16>
// CHECK:           %[[V:.*]] = loom.linear v %[[N]] : tensor<1x8x64xbf16> -> tensor<1x8x32xbf16>
// CHECK:           %[[QR:.*]] = loom.rope %[[Q]] {head_dim = 16 : i64, theta = 5.000000e+05 : f64} : tensor<1x8x64xbf16>
// CHECK:           %[[KR:.*]] = loom.rope %[[K]] {head_dim = 16 : i64, theta = 5.000000e+05 : f64} : tensor<1x8x32xbf16>
// CHECK:           %[[A:.*]] = loom.attention %[[QR]], %[[KR]], %[[V]] {causal, head_dim = 16 : i64, heads = 4 : i64, kv_heads = 2 : i64} : tensor<1x8x64xbf16>, tensor<1x8x32xbf16> -> tensor<1x8x64xbf16>
// CHECK:           %[[O:.*]] = loom.linear o %[[A]] : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
// CHECK:           %[[R1:.*]] = loom.add %[[X]], %[[O]] : tensor<1x8x64xbf16>, tensor<1x8x64xbf16>
// CHECK:           %[[N2:.*]] = loom.rms_norm %[[R1]] : tensor<1x8x64xbf16>
// CHECK:           %[[G:.*]] = loom.linear gate %[[N2]] : tensor<1x8x64xbf16> -> tensor<1x8x128xbf16>
// CHECK:           %[[U:.*]] = loom.linear up %[[N2]] : tensor<1x8x64xbf16> -> tensor<1x8x128xbf16>
// CHECK:           %[[S:.*]] = loom.swiglu %[[G]], %[[U]] : tensor<1x8x128xbf16>
// CHECK:           %[[D:.*]] = loom.linear down %[[S]] : tensor<1x8x128xbf16> -> tensor<1x8x64xbf16>
// CHECK:           %[[R2:.*]] = loom.add %[[R1]], %[[D]] : tensor<1x8x64xbf16>, tensor<1x8x64xbf16>
// CHECK:           loom.yield %[[R2]] : tensor<1x8x64xbf16>
// CHECK:         }
// CHECK:         %[[F:.*]] = loom.rms_norm %[[L0]] : tensor<1x8x64xbf16>
// CHECK:         %[[LOGITS:.*]] = loom.linear lm_head %[[F]] : tensor<1x8x64xbf16> -> tensor<1x8x128xbf16>
// CHECK:         return %[[LOGITS]] : tensor<1x8x128xbf16>
func.func @tiny_llama(%ids: tensor<1x8xi32>) -> tensor<1x8x128xbf16> {
  %emb = loom.embed %ids {vocab = 128} : tensor<1x8xi32> -> tensor<1x8x64xbf16>
  %h = loom.layer 0 (%emb) {kind = "llama"} : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
  ^bb0(%x: tensor<1x8x64xbf16>):
    %n = loom.rms_norm %x : tensor<1x8x64xbf16>
    %q = loom.linear q %n : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
    %k = loom.linear k %n : tensor<1x8x64xbf16> -> tensor<1x8x32xbf16>
    %v = loom.linear v %n : tensor<1x8x64xbf16> -> tensor<1x8x32xbf16>
    %qr = loom.rope %q {head_dim = 16, theta = 500000.0} : tensor<1x8x64xbf16>
    %kr = loom.rope %k {head_dim = 16, theta = 500000.0} : tensor<1x8x32xbf16>
    %a = loom.attention %qr, %kr, %v {heads = 4, kv_heads = 2, head_dim = 16, causal}
        : tensor<1x8x64xbf16>, tensor<1x8x32xbf16> -> tensor<1x8x64xbf16>
    %o = loom.linear o %a : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
    %r1 = loom.add %x, %o : tensor<1x8x64xbf16>, tensor<1x8x64xbf16>
    %n2 = loom.rms_norm %r1 : tensor<1x8x64xbf16>
    %g = loom.linear gate %n2 : tensor<1x8x64xbf16> -> tensor<1x8x128xbf16>
    %u = loom.linear up %n2 : tensor<1x8x64xbf16> -> tensor<1x8x128xbf16>
    %s = loom.swiglu %g, %u : tensor<1x8x128xbf16>
    %d = loom.linear down %s : tensor<1x8x128xbf16> -> tensor<1x8x64xbf16>
    %r2 = loom.add %r1, %d : tensor<1x8x64xbf16>, tensor<1x8x64xbf16>
    loom.yield %r2 : tensor<1x8x64xbf16>
  }
  %f = loom.rms_norm %h : tensor<1x8x64xbf16>
  %logits = loom.linear lm_head %f : tensor<1x8x64xbf16> -> tensor<1x8x128xbf16>
  return %logits : tensor<1x8x128xbf16>
}

//===----------------------------------------------------------------------===//
// Decoding one token against a KV cache of 7 earlier tokens, and a layer with
// no inputs or results.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @llama_decode
// CHECK:         loom.attention %{{.*}}, %{{.*}}, %{{.*}} {cached = 7 : i64, causal, head_dim = 16 : i64, heads = 4 : i64, kv_heads = 2 : i64} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16> -> tensor<1x1x64xbf16>
// CHECK:         loom.attention %{{.*}}, %{{.*}}, %{{.*}} {cached = 7 : i64, head_dim = 16 : i64, heads = 4 : i64, kv_heads = 4 : i64} : tensor<1x1x64xbf16>, tensor<1x5x64xbf16> -> tensor<1x1x64xbf16>
// CHECK:         loom.layer 1() : () -> () {
// CHECK-NEXT:      loom.yield
// CHECK-NEXT:    }
func.func @llama_decode(%q: tensor<1x1x64xbf16>, %k: tensor<1x1x32xbf16>,
                        %v: tensor<1x1x32xbf16>, %kf: tensor<1x5x64xbf16>)
    -> (tensor<1x1x64xbf16>, tensor<1x1x64xbf16>) {
  %a = loom.attention %q, %k, %v {heads = 4, kv_heads = 2, head_dim = 16, causal, cached = 7}
      : tensor<1x1x64xbf16>, tensor<1x1x32xbf16> -> tensor<1x1x64xbf16>
  // Non-causal with a cache (e.g. a later TeraPipe slice of a bidirectional model).
  %b = loom.attention %q, %kf, %kf {heads = 4, kv_heads = 4, head_dim = 16, cached = 7}
      : tensor<1x1x64xbf16>, tensor<1x5x64xbf16> -> tensor<1x1x64xbf16>
  loom.layer 1 () : () -> () {
    loom.yield
  }
  return %a, %b : tensor<1x1x64xbf16>, tensor<1x1x64xbf16>
}

//===----------------------------------------------------------------------===//
// A tiny GPT-2: learned positions, LayerNorm, fused QKV with bias, causal MHA,
// GELU MLP and a tied LM head.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @tiny_gpt
// CHECK:         loom.embed %{{.*}} {vocab = 100 : i64} : tensor<2x16xi64> -> tensor<2x16x64xf32>
// CHECK:         loom.position_embed %{{.*}} {max_positions = 32 : i64} : tensor<2x16x64xf32>
// CHECK:         loom.layer 0(%{{.*}}) {kind = "gpt"} : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
// CHECK:           loom.layer_norm %{{.*}} : tensor<2x16x64xf32>
// CHECK:           loom.linear qkv %{{.*}} {bias} : tensor<2x16x64xf32> -> tensor<2x16x192xf32>
// CHECK:           %{{.*}}:3 = loom.chunk %{{.*}} : tensor<2x16x192xf32> -> tensor<2x16x64xf32>, tensor<2x16x64xf32>, tensor<2x16x64xf32>
// CHECK:           loom.attention %{{.*}}#0, %{{.*}}#1, %{{.*}}#2 {causal, head_dim = 16 : i64, heads = 4 : i64, kv_heads = 4 : i64} : tensor<2x16x64xf32>, tensor<2x16x64xf32> -> tensor<2x16x64xf32>
// CHECK:           loom.linear o %{{.*}} {bias} : tensor<2x16x64xf32> -> tensor<2x16x64xf32>
// CHECK:           loom.add
// CHECK:           loom.layer_norm %{{.*}} : tensor<2x16x64xf32>
// CHECK:           loom.linear fc1 %{{.*}} {bias} : tensor<2x16x64xf32> -> tensor<2x16x256xf32>
// CHECK:           loom.activation gelu_tanh %{{.*}} : tensor<2x16x256xf32>
// CHECK:           loom.linear fc2 %{{.*}} {bias} : tensor<2x16x256xf32> -> tensor<2x16x64xf32>
// CHECK:           loom.add
// CHECK:           loom.yield %{{.*}} : tensor<2x16x64xf32>
// CHECK:         loom.layer_norm %{{.*}} : tensor<2x16x64xf32>
// CHECK:         loom.linear lm_head %{{.*}} {tied} : tensor<2x16x64xf32> -> tensor<2x16x100xf32>
func.func @tiny_gpt(%ids: tensor<2x16xi64>) -> tensor<2x16x100xf32> {
  %tok = loom.embed %ids {vocab = 100} : tensor<2x16xi64> -> tensor<2x16x64xf32>
  %pos = loom.position_embed %tok {max_positions = 32} : tensor<2x16x64xf32>
  %h = loom.layer 0 (%pos) {kind = "gpt"} : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
  ^bb0(%x: tensor<2x16x64xf32>):
    %n = loom.layer_norm %x : tensor<2x16x64xf32>
    %qkv = loom.linear qkv %n {bias} : tensor<2x16x64xf32> -> tensor<2x16x192xf32>
    %q, %k, %v = loom.chunk %qkv : tensor<2x16x192xf32> -> tensor<2x16x64xf32>, tensor<2x16x64xf32>, tensor<2x16x64xf32>
    %a = loom.attention %q, %k, %v {heads = 4, kv_heads = 4, head_dim = 16, causal}
        : tensor<2x16x64xf32>, tensor<2x16x64xf32> -> tensor<2x16x64xf32>
    %o = loom.linear o %a {bias} : tensor<2x16x64xf32> -> tensor<2x16x64xf32>
    %r1 = loom.add %x, %o : tensor<2x16x64xf32>, tensor<2x16x64xf32>
    %n2 = loom.layer_norm %r1 : tensor<2x16x64xf32>
    %f1 = loom.linear fc1 %n2 {bias} : tensor<2x16x64xf32> -> tensor<2x16x256xf32>
    %act = loom.activation gelu_tanh %f1 : tensor<2x16x256xf32>
    %f2 = loom.linear fc2 %act {bias} : tensor<2x16x256xf32> -> tensor<2x16x64xf32>
    %r2 = loom.add %r1, %f2 : tensor<2x16x64xf32>, tensor<2x16x64xf32>
    loom.yield %r2 : tensor<2x16x64xf32>
  }
  %f = loom.layer_norm %h : tensor<2x16x64xf32>
  %logits = loom.linear lm_head %f {tied} : tensor<2x16x64xf32> -> tensor<2x16x100xf32>
  return %logits : tensor<2x16x100xf32>
}

//===----------------------------------------------------------------------===//
// A tiny DiT: patchify, timestep and class-label conditioning, one adaLN-zero
// block, final modulation and unpatchify. Latent 4x8x8, patch 2, hidden 64.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @tiny_dit
// CHECK:         loom.patchify %{{.*}} {patch_size = 2 : i64} : tensor<2x4x8x8xbf16> -> tensor<2x16x64xbf16>
// CHECK:         loom.timestep_embed %{{.*}} : tensor<2xbf16> -> tensor<2x32xbf16>
// CHECK:         loom.linear embed %{{.*}} {bias} : tensor<2x32xbf16> -> tensor<2x64xbf16>
// CHECK:         loom.activation silu %{{.*}} : tensor<2x64xbf16>
// CHECK:         loom.linear cond %{{.*}} {bias} : tensor<2x64xbf16> -> tensor<2x64xbf16>
// CHECK:         loom.embed %{{.*}} {vocab = 1001 : i64} : tensor<2xi32> -> tensor<2x64xbf16>
// CHECK:         loom.add %{{.*}}, %{{.*}} : tensor<2x64xbf16>, tensor<2x64xbf16>
// CHECK:         loom.layer 0(%{{.*}}, %{{.*}}) {kind = "dit"} : (tensor<2x16x64xbf16>, tensor<2x64xbf16>) -> tensor<2x16x64xbf16> {
// CHECK:           loom.activation silu %{{.*}} : tensor<2x64xbf16>
// CHECK:           loom.linear modulation %{{.*}} {bias} : tensor<2x64xbf16> -> tensor<2x384xbf16>
// CHECK:           %{{.*}}:6 = loom.chunk %{{.*}} : tensor<2x384xbf16> -> tensor<2x64xbf16>, tensor<2x64xbf16>, tensor<2x64xbf16>, tensor<2x64xbf16>, tensor<2x64xbf16>, tensor<2x64xbf16>
// CHECK:           loom.layer_norm %{{.*}} {affine = false} : tensor<2x16x64xbf16>
// CHECK:           loom.modulate %{{.*}}, %{{.*}}#0, %{{.*}}#1 : tensor<2x16x64xbf16>, tensor<2x64xbf16>
// CHECK:           loom.attention %{{.*}}, %{{.*}}, %{{.*}} {head_dim = 16 : i64, heads = 4 : i64, kv_heads = 4 : i64} : tensor<2x16x64xbf16>, tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
// CHECK:           loom.gate %{{.*}}, %{{.*}}#2 : tensor<2x16x64xbf16>, tensor<2x64xbf16>
// CHECK:           loom.activation gelu %{{.*}} : tensor<2x16x256xbf16>
// CHECK:           loom.gate %{{.*}}, %{{.*}}#5 : tensor<2x16x64xbf16>, tensor<2x64xbf16>
// CHECK:           loom.yield %{{.*}} : tensor<2x16x64xbf16>
// CHECK:         loom.linear proj_out %{{.*}} {bias} : tensor<2x16x64xbf16> -> tensor<2x16x32xbf16>
// CHECK:         loom.unpatchify %{{.*}} {patch_size = 2 : i64} : tensor<2x16x32xbf16> -> tensor<2x8x8x8xbf16>
func.func @tiny_dit(%latent: tensor<2x4x8x8xbf16>, %t: tensor<2xbf16>,
                    %label: tensor<2xi32>) -> tensor<2x8x8x8xbf16> {
  %x = loom.patchify %latent {patch_size = 2} : tensor<2x4x8x8xbf16> -> tensor<2x16x64xbf16>
  %tf = loom.timestep_embed %t : tensor<2xbf16> -> tensor<2x32xbf16>
  %t1 = loom.linear embed %tf {bias} : tensor<2x32xbf16> -> tensor<2x64xbf16>
  %t2 = loom.activation silu %t1 : tensor<2x64xbf16>
  %temb = loom.linear cond %t2 {bias} : tensor<2x64xbf16> -> tensor<2x64xbf16>
  %yemb = loom.embed %label {vocab = 1001} : tensor<2xi32> -> tensor<2x64xbf16>
  %c = loom.add %temb, %yemb : tensor<2x64xbf16>, tensor<2x64xbf16>
  %h = loom.layer 0 (%x, %c) {kind = "dit"}
      : (tensor<2x16x64xbf16>, tensor<2x64xbf16>) -> tensor<2x16x64xbf16> {
  ^bb0(%in: tensor<2x16x64xbf16>, %cond: tensor<2x64xbf16>):
    %sc = loom.activation silu %cond : tensor<2x64xbf16>
    %mod = loom.linear modulation %sc {bias} : tensor<2x64xbf16> -> tensor<2x384xbf16>
    %shift1, %scale1, %gate1, %shift2, %scale2, %gate2 = loom.chunk %mod
        : tensor<2x384xbf16> -> tensor<2x64xbf16>, tensor<2x64xbf16>, tensor<2x64xbf16>,
                                tensor<2x64xbf16>, tensor<2x64xbf16>, tensor<2x64xbf16>
    %n1 = loom.layer_norm %in {affine = false} : tensor<2x16x64xbf16>
    %m1 = loom.modulate %n1, %shift1, %scale1 : tensor<2x16x64xbf16>, tensor<2x64xbf16>
    %q = loom.linear q %m1 {bias} : tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
    %k = loom.linear k %m1 {bias} : tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
    %v = loom.linear v %m1 {bias} : tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
    %a = loom.attention %q, %k, %v {heads = 4, kv_heads = 4, head_dim = 16}
        : tensor<2x16x64xbf16>, tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
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
  %sc = loom.activation silu %c : tensor<2x64xbf16>
  %mod = loom.linear modulation %sc {bias} : tensor<2x64xbf16> -> tensor<2x128xbf16>
  %shift, %scale = loom.chunk %mod : tensor<2x128xbf16> -> tensor<2x64xbf16>, tensor<2x64xbf16>
  %n = loom.layer_norm %h {affine = false} : tensor<2x16x64xbf16>
  %m = loom.modulate %n, %shift, %scale : tensor<2x16x64xbf16>, tensor<2x64xbf16>
  // p * p * out_channels = 2 * 2 * 8 (learned sigma doubles the 4 channels).
  %p = loom.linear proj_out %m {bias} : tensor<2x16x64xbf16> -> tensor<2x16x32xbf16>
  %img = loom.unpatchify %p {patch_size = 2} : tensor<2x16x32xbf16> -> tensor<2x8x8x8xbf16>
  return %img : tensor<2x8x8x8xbf16>
}

//===----------------------------------------------------------------------===//
// PixArt-alpha: a per-block scale_shift_table param broadcast over the batch
// (suffix broadcast of add and mul), and cross attention to projected text.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @pixart_block
// CHECK:         loom.linear context %{{.*}} {bias} : tensor<2x10x48xbf16> -> tensor<2x10x64xbf16>
// CHECK:         loom.layer 3(%{{.*}}, %{{.*}}, %{{.*}}) {kind = "pixart"} : (tensor<2x16x64xbf16>, tensor<2x6x64xbf16>, tensor<2x10x64xbf16>) -> tensor<2x16x64xbf16> {
// CHECK:           loom.param "scale_shift_table" : tensor<6x64xbf16>
// CHECK:           loom.add %{{.*}}, %{{.*}} : tensor<2x6x64xbf16>, tensor<6x64xbf16>
// CHECK:           loom.reshape %{{.*}} : tensor<2x6x64xbf16> -> tensor<2x384xbf16>
// CHECK:           loom.attention %{{.*}}, %{{.*}}, %{{.*}} {cross, head_dim = 16 : i64, heads = 4 : i64, kv_heads = 4 : i64} : tensor<2x16x64xbf16>, tensor<2x10x64xbf16> -> tensor<2x16x64xbf16>
// CHECK:           loom.mul %{{.*}}, %{{.*}} : tensor<2x16x64xbf16>, tensor<64xbf16>
// CHECK:           loom.mul %{{.*}}, %{{.*}} : tensor<2x16x64xbf16>, tensor<2x16x64xbf16>
// CHECK:           loom.yield %{{.*}} : tensor<2x16x64xbf16>
func.func @pixart_block(%x: tensor<2x16x64xbf16>, %t6: tensor<2x6x64xbf16>,
                        %text: tensor<2x10x48xbf16>) -> tensor<2x16x64xbf16> {
  %ctx = loom.linear context %text {bias} : tensor<2x10x48xbf16> -> tensor<2x10x64xbf16>
  %h = loom.layer 3 (%x, %t6, %ctx) {kind = "pixart"}
      : (tensor<2x16x64xbf16>, tensor<2x6x64xbf16>, tensor<2x10x64xbf16>) -> tensor<2x16x64xbf16> {
  ^bb0(%in: tensor<2x16x64xbf16>, %t: tensor<2x6x64xbf16>, %c: tensor<2x10x64xbf16>):
    %table = loom.param "scale_shift_table" : tensor<6x64xbf16>
    %mod = loom.add %t, %table : tensor<2x6x64xbf16>, tensor<6x64xbf16>
    %flat = loom.reshape %mod : tensor<2x6x64xbf16> -> tensor<2x384xbf16>
    %shift, %scale, %gate, %s2, %c2, %g2 = loom.chunk %flat
        : tensor<2x384xbf16> -> tensor<2x64xbf16>, tensor<2x64xbf16>, tensor<2x64xbf16>,
                                tensor<2x64xbf16>, tensor<2x64xbf16>, tensor<2x64xbf16>
    %n = loom.layer_norm %in {affine = false} : tensor<2x16x64xbf16>
    %m = loom.modulate %n, %shift, %scale : tensor<2x16x64xbf16>, tensor<2x64xbf16>
    %sa = loom.gate %m, %gate : tensor<2x16x64xbf16>, tensor<2x64xbf16>
    %r = loom.add %in, %sa : tensor<2x16x64xbf16>, tensor<2x16x64xbf16>
    %q = loom.linear q %r {bias} : tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
    %k = loom.linear k %c {bias} : tensor<2x10x64xbf16> -> tensor<2x10x64xbf16>
    %v = loom.linear v %c {bias} : tensor<2x10x64xbf16> -> tensor<2x10x64xbf16>
    %a = loom.attention %q, %k, %v {heads = 4, kv_heads = 4, head_dim = 16, cross}
        : tensor<2x16x64xbf16>, tensor<2x10x64xbf16> -> tensor<2x16x64xbf16>
    %w = loom.param "residual_scale" : tensor<64xbf16>
    %ws = loom.mul %a, %w : tensor<2x16x64xbf16>, tensor<64xbf16>
    %sq = loom.mul %ws, %ws : tensor<2x16x64xbf16>, tensor<2x16x64xbf16>
    loom.yield %sq : tensor<2x16x64xbf16>
  }
  return %h : tensor<2x16x64xbf16>
}

//===----------------------------------------------------------------------===//
// A tiny MMDiT (SD3 / Flux double) block: separate image and text streams,
// per-head QK RMSNorm, joint attention over both.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @tiny_mmdit
// CHECK:         %{{.*}}:2 = loom.layer 0(%{{.*}}, %{{.*}}) {kind = "mmdit"} : (tensor<1x16x64xbf16>, tensor<1x6x64xbf16>) -> (tensor<1x16x64xbf16>, tensor<1x6x64xbf16>) {
// CHECK:           loom.rms_norm %{{.*}} {group = 16 : i64} : tensor<1x16x64xbf16>
// CHECK:           loom.layer_norm %{{.*}} {affine = false, group = 16 : i64} : tensor<1x6x64xbf16>
// CHECK:           %img, %txt = loom.joint_attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {head_dim = 16 : i64, heads = 4 : i64} : tensor<1x16x64xbf16>, tensor<1x6x64xbf16>
// CHECK:           loom.yield %{{.*}}, %{{.*}} : tensor<1x16x64xbf16>, tensor<1x6x64xbf16>
func.func @tiny_mmdit(%img: tensor<1x16x64xbf16>, %txt: tensor<1x6x64xbf16>)
    -> (tensor<1x16x64xbf16>, tensor<1x6x64xbf16>) {
  %oi, %ot = loom.layer 0 (%img, %txt) {kind = "mmdit"}
      : (tensor<1x16x64xbf16>, tensor<1x6x64xbf16>) -> (tensor<1x16x64xbf16>, tensor<1x6x64xbf16>) {
  ^bb0(%xi: tensor<1x16x64xbf16>, %xt: tensor<1x6x64xbf16>):
    %qi = loom.linear q %xi {bias} : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    %ki = loom.linear k %xi {bias} : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    %vi = loom.linear v %xi {bias} : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    %qt = loom.linear q %xt {bias} : tensor<1x6x64xbf16> -> tensor<1x6x64xbf16>
    %kt = loom.linear k %xt {bias} : tensor<1x6x64xbf16> -> tensor<1x6x64xbf16>
    %vt = loom.linear v %xt {bias} : tensor<1x6x64xbf16> -> tensor<1x6x64xbf16>
    %qin = loom.rms_norm %qi {group = 16} : tensor<1x16x64xbf16>
    %kin = loom.rms_norm %ki {group = 16} : tensor<1x16x64xbf16>
    %qtn = loom.layer_norm %qt {affine = false, group = 16} : tensor<1x6x64xbf16>
    %ktn = loom.layer_norm %kt {affine = false, group = 16} : tensor<1x6x64xbf16>
    %ai, %at = loom.joint_attention %qin, %kin, %vi, %qtn, %ktn, %vt {heads = 4, head_dim = 16}
        : tensor<1x16x64xbf16>, tensor<1x6x64xbf16>
    %oi = loom.linear o %ai {bias} : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    %ot = loom.linear o %at {bias} : tensor<1x6x64xbf16> -> tensor<1x6x64xbf16>
    loom.yield %oi, %ot : tensor<1x16x64xbf16>, tensor<1x6x64xbf16>
  }
  return %oi, %ot : tensor<1x16x64xbf16>, tensor<1x6x64xbf16>
}

//===----------------------------------------------------------------------===//
// A Flux single block: text and image tokens joined along the sequence, a
// fused qkv + MLP projection split with slices, the attention and MLP branches
// joined along features, then split back into the image tokens.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @flux_single
// CHECK:         loom.concat %{{.*}}, %{{.*}} {dim = 1 : i64} : (tensor<1x6x64xbf16>, tensor<1x16x64xbf16>) -> tensor<1x22x64xbf16>
// CHECK:         loom.layer 0(%{{.*}}) {kind = "flux_single"} : (tensor<1x22x64xbf16>) -> tensor<1x22x64xbf16> {
// CHECK:           loom.linear fc1 %{{.*}} {bias} : tensor<1x22x64xbf16> -> tensor<1x22x448xbf16>
// CHECK:           loom.slice %{{.*}} {dim = 2 : i64, offset = 0 : i64} : tensor<1x22x448xbf16> -> tensor<1x22x192xbf16>
// CHECK:           loom.slice %{{.*}} {dim = 2 : i64, offset = 192 : i64} : tensor<1x22x448xbf16> -> tensor<1x22x256xbf16>
// CHECK:           loom.rope %{{.*}} {head_dim = 16 : i64} : tensor<1x22x64xbf16>
// CHECK:           loom.activation gelu_tanh %{{.*}} : tensor<1x22x256xbf16>
// CHECK:           loom.concat %{{.*}}, %{{.*}} {dim = 2 : i64} : (tensor<1x22x64xbf16>, tensor<1x22x256xbf16>) -> tensor<1x22x320xbf16>
// CHECK:           loom.linear fc2 %{{.*}} {bias} : tensor<1x22x320xbf16> -> tensor<1x22x64xbf16>
// CHECK:         loom.slice %{{.*}} {dim = 1 : i64, offset = 6 : i64} : tensor<1x22x64xbf16> -> tensor<1x16x64xbf16>
// CHECK:         loom.activation relu %{{.*}} : tensor<1x16x64xbf16>
// CHECK:         loom.concat %{{.*}} {dim = 0 : i64} : (tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16>
func.func @flux_single(%txt: tensor<1x6x64xbf16>, %img: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  %x = loom.concat %txt, %img {dim = 1} : (tensor<1x6x64xbf16>, tensor<1x16x64xbf16>) -> tensor<1x22x64xbf16>
  %h = loom.layer 0 (%x) {kind = "flux_single"} : (tensor<1x22x64xbf16>) -> tensor<1x22x64xbf16> {
  ^bb0(%in: tensor<1x22x64xbf16>):
    %n = loom.layer_norm %in {affine = false} : tensor<1x22x64xbf16>
    %proj = loom.linear fc1 %n {bias} : tensor<1x22x64xbf16> -> tensor<1x22x448xbf16>
    %qkv = loom.slice %proj {dim = 2, offset = 0} : tensor<1x22x448xbf16> -> tensor<1x22x192xbf16>
    %mlp = loom.slice %proj {dim = 2, offset = 192} : tensor<1x22x448xbf16> -> tensor<1x22x256xbf16>
    %q, %k, %v = loom.chunk %qkv : tensor<1x22x192xbf16> -> tensor<1x22x64xbf16>, tensor<1x22x64xbf16>, tensor<1x22x64xbf16>
    %qr = loom.rope %q {head_dim = 16} : tensor<1x22x64xbf16>
    %kr = loom.rope %k {head_dim = 16} : tensor<1x22x64xbf16>
    %a = loom.attention %qr, %kr, %v {heads = 4, kv_heads = 4, head_dim = 16}
        : tensor<1x22x64xbf16>, tensor<1x22x64xbf16> -> tensor<1x22x64xbf16>
    %act = loom.activation gelu_tanh %mlp : tensor<1x22x256xbf16>
    %cat = loom.concat %a, %act {dim = 2} : (tensor<1x22x64xbf16>, tensor<1x22x256xbf16>) -> tensor<1x22x320xbf16>
    %out = loom.linear fc2 %cat {bias} : tensor<1x22x320xbf16> -> tensor<1x22x64xbf16>
    %r = loom.add %in, %out : tensor<1x22x64xbf16>, tensor<1x22x64xbf16>
    loom.yield %r : tensor<1x22x64xbf16>
  }
  %imgOut = loom.slice %h {dim = 1, offset = 6} : tensor<1x22x64xbf16> -> tensor<1x16x64xbf16>
  %relu = loom.activation relu %imgOut : tensor<1x16x64xbf16>
  %one = loom.concat %relu {dim = 0} : (tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16>
  return %one : tensor<1x16x64xbf16>
}

//===----------------------------------------------------------------------===//
// Collectives as produced by tensor, sequence and expert parallel sharding.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @collectives
// CHECK:         loom.all_reduce %{{.*}} {group = "tp", group_size = 4 : i64} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
// CHECK:         loom.all_gather %{{.*}} {dim = 1 : i64, group = "sp", group_size = 2 : i64} : tensor<1x8x64xbf16> -> tensor<1x16x64xbf16>
// CHECK:         loom.reduce_scatter %{{.*}} {dim = 1 : i64, group = "sp", group_size = 2 : i64} : tensor<1x16x64xbf16> -> tensor<1x8x64xbf16>
// CHECK:         loom.all_to_all %{{.*}} {dim = 2 : i64, group = "ep", group_size = 8 : i64} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
func.func @collectives(%x: tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
  %r = loom.all_reduce %x {group = "tp", group_size = 4} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  %g = loom.all_gather %r {group = "sp", group_size = 2, dim = 1} : tensor<1x8x64xbf16> -> tensor<1x16x64xbf16>
  %s = loom.reduce_scatter %g {group = "sp", group_size = 2, dim = 1} : tensor<1x16x64xbf16> -> tensor<1x8x64xbf16>
  %a = loom.all_to_all %s {group = "ep", group_size = 8, dim = 2} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return %a : tensor<1x8x64xbf16>
}

//===----------------------------------------------------------------------===//
// A video latent: 1x2x2 patches over 5 latent frames (Wan, HunyuanVideo),
// and 2x2x2 patches (CogVideoX 1.5).
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @video_patches
// CHECK:         loom.patchify %{{.*}} {patch_size = 2 : i64, patch_t = 1 : i64} : tensor<1x16x5x8x8xbf16> -> tensor<1x80x64xbf16>
// CHECK:         loom.patchify %{{.*}} {patch_size = 2 : i64, patch_t = 2 : i64} : tensor<1x16x4x8x8xbf16> -> tensor<1x32x64xbf16>
// CHECK:         loom.unpatchify %{{.*}} {patch_size = 2 : i64, patch_t = 1 : i64} : tensor<1x80x64xbf16> -> tensor<1x16x5x8x8xbf16>
func.func @video_patches(%v: tensor<1x16x5x8x8xbf16>, %w: tensor<1x16x4x8x8xbf16>) -> (tensor<1x16x5x8x8xbf16>, tensor<1x32x64xbf16>) {
  %x = loom.patchify %v {patch_size = 2, patch_t = 1} : tensor<1x16x5x8x8xbf16> -> tensor<1x80x64xbf16>
  %y = loom.patchify %w {patch_size = 2, patch_t = 2} : tensor<1x16x4x8x8xbf16> -> tensor<1x32x64xbf16>
  %o = loom.unpatchify %x {patch_size = 2, patch_t = 1} : tensor<1x80x64xbf16> -> tensor<1x16x5x8x8xbf16>
  return %o, %y : tensor<1x16x5x8x8xbf16>, tensor<1x32x64xbf16>
}
