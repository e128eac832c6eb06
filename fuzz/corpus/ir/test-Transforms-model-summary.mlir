// RUN: loom-opt %s --loom-model-summary -o /dev/null | FileCheck %s
// RUN: loom-opt %s --loom-model-summary=per-layer=false | FileCheck %s --check-prefix=TOTALS

// A two-layer toy model whose figures are worked out by hand:
//   embed: 100 x 16 = 1600 params.
//   layer: linear 16 -> 32 (512 params, 2*8*16*32 = 8192 FLOPs),
//          causal attention 2 heads x 16 over 8 tokens (36 pairs):
//          4 * 2 * 16 * 36 = 4608 FLOPs; KV cache 2 * 8 * 32 * 2 B = 1024 B;
//          linear 32 -> 16 (512 params, 8192 FLOPs);
//          add: 128 FLOPs.
//   Bytes per layer (bf16, 8 tokens): read 256 + 1024 (qkv input and
//   weights) + 3 x 512 (q, k, v) + 512 + 1024 (o input and weights) +
//   2 x 256 (add) = 4864; written 512 + 512 + 256 + 256 = 1536. The
//   embedding reads the 32 B of ids and the 256 B of rows it looks up.
func.func @toy(%ids: tensor<1x8xi32>) -> tensor<1x8x16xbf16> {
  %x = loom.embed %ids {vocab = 100} : tensor<1x8xi32> -> tensor<1x8x16xbf16>
  %y = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
  ^bb0(%in: tensor<1x8x16xbf16>):
    %q = loom.linear qkv %in : tensor<1x8x16xbf16> -> tensor<1x8x32xbf16>
    %a = loom.attention %q, %q, %q {heads = 2, kv_heads = 2, head_dim = 16, causal} : tensor<1x8x32xbf16>, tensor<1x8x32xbf16> -> tensor<1x8x32xbf16>
    %o = loom.linear o %a : tensor<1x8x32xbf16> -> tensor<1x8x16xbf16>
    %r = loom.add %in, %o : tensor<1x8x16xbf16>, tensor<1x8x16xbf16>
    loom.yield %r : tensor<1x8x16xbf16>
  }
  %z = loom.layer 1 (%y) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
  ^bb0(%in: tensor<1x8x16xbf16>):
    %q = loom.linear qkv %in : tensor<1x8x16xbf16> -> tensor<1x8x32xbf16>
    %a = loom.attention %q, %q, %q {heads = 2, kv_heads = 2, head_dim = 16, causal} : tensor<1x8x32xbf16>, tensor<1x8x32xbf16> -> tensor<1x8x32xbf16>
    %o = loom.linear o %a : tensor<1x8x32xbf16> -> tensor<1x8x16xbf16>
    %r = loom.add %in, %o : tensor<1x8x16xbf16>, tensor<1x8x16xbf16>
    loom.yield %r : tensor<1x8x16xbf16>
  }
  return %z : tensor<1x8x16xbf16>
}

// CHECK:      model @toy
// CHECK-NEXT:   part      kind   params   FLOPs   read   written   KV cache
// CHECK-NEXT:   prologue         1.60 k   0         288 B     256 B     0 B
// CHECK-NEXT:   0                1.02 k   21.12 k   4.86 kB   1.54 kB   1.02 kB
// CHECK-NEXT:   1                1.02 k   21.12 k   4.86 kB   1.54 kB   1.02 kB
// CHECK-NEXT:   total            3.65 k   42.24 k   10.02 kB  3.33 kB   2.05 kB
// CHECK:        layers:           2
// CHECK-NEXT:   parameters:       3648 (3.65 k)
// CHECK-NEXT:   forward FLOPs:    42240 (42.24 kFLOP)
// CHECK-NEXT:   weight bytes:     7296
// CHECK-NEXT:   activation bytes: 3328
// CHECK-NEXT:   KV cache bytes:   2048

// The analysis leaves the IR as it was.
// TOTALS: parameters:       3648
// TOTALS: func.func @toy
// TOTALS: loom.layer 1
