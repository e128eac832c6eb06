// RUN: loom-opt %s --loom-shard-sequence=sp=2 | FileCheck %s
// RUN: loom-opt %s --loom-shard-heads=tp=2 --loom-shard-sequence=sp=2 | FileCheck %s --check-prefix=TP2
// RUN: loom-opt %s --loom-shard-sequence=sp=1 | FileCheck %s --check-prefix=ONE

// A DiT block of 4 heads of 64 (hidden 256) over 64 image tokens, with a
// cross-attention to 8 replicated text tokens, on v5e-4. Ulysses with sp = 2:
// each chip holds 32 of the 64 tokens between attentions; around the
// self-attention an all-to-all over "sp" trades the token split for a head
// split ([1, 32, 256] -> [1, 64, 128]: all 64 tokens of 2 heads) and back.
// The cross-attention's queries stay split and its text keys whole: no
// exchange. The final norm runs on the split tokens and the function returns
// them split.

// CHECK: loom.parallel = #loom.parallel<sp = 2>
// CHECK: func.func @toy_dit(%[[X:.*]]: tensor<1x64x256xbf16>, %[[T:.*]]: tensor<1x8x256xbf16>) -> tensor<1x32x256xbf16>
// CHECK: %[[S:.*]] = loom.local_shard %[[X]] {dim = 1 : i64, group = "sp", group_size = 2 : i64} : tensor<1x64x256xbf16> -> tensor<1x32x256xbf16>
// CHECK: loom.layer 0(%[[S]], %[[T]]) : (tensor<1x32x256xbf16>, tensor<1x8x256xbf16>) -> tensor<1x32x256xbf16>
// CHECK: %[[Q:.*]] = loom.linear q {{.*}} : tensor<1x32x256xbf16> -> tensor<1x32x256xbf16>
// CHECK-NEXT: %[[H:.*]] = loom.all_to_all %[[Q]] {concat_dim = 1 : i64, dim = 2 : i64, group = "sp", group_size = 2 : i64} : tensor<1x32x256xbf16> -> tensor<1x64x128xbf16>
// CHECK-NEXT: %[[A:.*]] = loom.attention %[[H]], %[[H]], %[[H]] {head_dim = 64 : i64, heads = 2 : i64, kv_heads = 2 : i64} : tensor<1x64x128xbf16>, tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
// CHECK-NEXT: %[[B:.*]] = loom.all_to_all %[[A]] {concat_dim = 2 : i64, dim = 1 : i64, group = "sp", group_size = 2 : i64} : tensor<1x64x128xbf16> -> tensor<1x32x256xbf16>
// CHECK-NEXT: loom.linear o %[[B]] : tensor<1x32x256xbf16> -> tensor<1x32x256xbf16>
// CHECK-NEXT: loom.linear k {{.*}} : tensor<1x8x256xbf16> -> tensor<1x8x256xbf16>
// CHECK-NEXT: loom.attention {{.*}} {cross, head_dim = 64 : i64, heads = 4 : i64, kv_heads = 4 : i64} : tensor<1x32x256xbf16>, tensor<1x8x256xbf16> -> tensor<1x32x256xbf16>
// CHECK: loom.rms_norm {{.*}} : tensor<1x32x256xbf16>
// CHECK-NEXT: return {{.*}} : tensor<1x32x256xbf16>

// With tp = 2 first, each chip's 2 heads split 2 ways: [1, 32, 128] -> [1, 64, 64].
// TP2: loom.parallel = #loom.parallel<tp = 2, sp = 2>
// TP2: loom.all_to_all {{.*}}group = "sp", group_size = 2 : i64} : tensor<1x32x128xbf16> -> tensor<1x64x64xbf16>
// TP2-NEXT: loom.attention {{.*}}heads = 1 : i64, kv_heads = 1 : i64{{.*}} : tensor<1x64x64xbf16>
// TP2-NEXT: loom.all_to_all {{.*}}group = "sp", group_size = 2 : i64} : tensor<1x64x64xbf16> -> tensor<1x32x128xbf16>
// TP2-NEXT: loom.linear o {{.*}} : tensor<1x32x128xbf16> -> tensor<1x32x256xbf16>
// TP2: loom.all_reduce {{.*}}group = "tp", group_size = 2 : i64} : tensor<1x32x256xbf16>

// sp = 1 changes nothing.
// ONE-NOT: loom.parallel
// ONE-NOT: all_to_all
// ONE: loom.attention {{.*}}heads = 4

module attributes {loom.model = #loom.model<name = "toy-dit", family = "dit", mode = diffusion, batch = 1, seq = 64, steps = 4>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  func.func @toy_dit(%x: tensor<1x64x256xbf16>, %txt: tensor<1x8x256xbf16>) -> tensor<1x64x256xbf16> {
    %0 = loom.layer 0 (%x, %txt) : (tensor<1x64x256xbf16>, tensor<1x8x256xbf16>) -> tensor<1x64x256xbf16> {
    ^bb0(%in: tensor<1x64x256xbf16>, %t: tensor<1x8x256xbf16>):
      %q = loom.linear q %in : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      %a = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 64} : tensor<1x64x256xbf16>, tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      %o = loom.linear o %a : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      %kt = loom.linear k %t : tensor<1x8x256xbf16> -> tensor<1x8x256xbf16>
      %c = loom.attention %o, %kt, %kt {heads = 4, kv_heads = 4, head_dim = 64, cross} : tensor<1x64x256xbf16>, tensor<1x8x256xbf16> -> tensor<1x64x256xbf16>
      loom.yield %c : tensor<1x64x256xbf16>
    }
    %1 = loom.rms_norm %0 : tensor<1x64x256xbf16>
    return %1 : tensor<1x64x256xbf16>
  }
}
