// RUN: loom-opt %s -split-input-file -verify-diagnostics --loom-check-memory=remarks=true
// A diffusion model's stages keep the previous step's K/V for PipeFusion's
// stale patches when a step has more than one patch
// (Inputs/dit-2-stages.mlir, cut into 4 patches below): 2 x 131072 B of
// weights, 3 x 32768 B of results in flight (a quarter of them, 24576 B,
// with 4 patches), and the K/V of each layer's 64 tokens, 2 x 64 x 256 x
// 2 B = 65536 B. One patch computes every K/V in its step and keeps none.
// RUN: loom-opt %S/Inputs/dit-2-stages.mlir --loom-check-memory=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=DIT
// DIT: remark: stage 0 (layers 0-0): 360.45 kB of 16.00 GB per chip (0%): weights of layers 0-0 262.14 kB, activations in flight 98.30 kB
// DIT-NOT: stale
// DIT: remark: stage 1 (layers 1-1): 360.45 kB
// RUN: sed -e 's/slices = \[64\]/slices = [16, 16, 16, 16]/' %S/Inputs/dit-2-stages.mlir | loom-opt --loom-check-memory=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=STALE
// STALE: remark: stage 0 (layers 0-0): 352.26 kB of 16.00 GB per chip (0%): weights of layers 0-0 262.14 kB, stale K/V of the previous step 65.54 kB, activations in flight 24.58 kB

// 2 x 65536^2 x 2 B = 17.18 GB of weights in one stage, plus two 1 MB
// results: the error names the stage, the total and the largest items.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [1, 1]>} {
  func.func @huge(%x: tensor<1x8x65536xbf16>) -> tensor<1x8x65536xbf16> {
    // expected-error @+1 {{stage 0 (layers 0-0) needs 17.18 GB of HBM per chip, more than the 16.00 GB of a tpu-v5e chip; largest items: weights of layers 0-0 17.18 GB, activations in flight 2.10 MB (largest layer: 0 at 17.18 GB)}}
    %a = loom.layer 0 (%x) : (tensor<1x8x65536xbf16>) -> tensor<1x8x65536xbf16> {
    ^bb0(%in: tensor<1x8x65536xbf16>):
      %h = loom.linear up %in : tensor<1x8x65536xbf16> -> tensor<1x8x65536xbf16>
      %g = loom.linear down %h : tensor<1x8x65536xbf16> -> tensor<1x8x65536xbf16>
      loom.yield %g : tensor<1x8x65536xbf16>
    }
    return %a : tensor<1x8x65536xbf16>
  }
}

// -----

// Weights: q, k, o of 64 x 64 x 2 B = 24.58 kB; activations: four 8 x 64
// bf16 results = 4.10 kB; the causal layer keeps the K/V of its 8 tokens:
// 2 x 8 x 64 x 2 B = 2.05 kB; 30.72 kB in all.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [1, 1]>} {
  func.func @small(%x: tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    // expected-remark @+1 {{stage 0 (layers 0-0): 30.72 kB of 16.00 GB per chip (0%): weights of layers 0-0 24.58 kB, activations in flight 4.10 kB, KV cache 2.05 kB}}
    %a = loom.layer 0 (%x) : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    ^bb0(%in: tensor<1x8x64xbf16>):
      %q = loom.linear q %in : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      %k = loom.linear k %in : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      %a = loom.attention %q, %k, %k {heads = 4, kv_heads = 4, head_dim = 16, causal} : tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      %o = loom.linear o %a : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      loom.yield %o : tensor<1x8x64xbf16>
    }
    return %a : tensor<1x8x64xbf16>
  }
}

// -----

// A pipeline is checked stage by stage. Each layer holds one 65536 x 65536
// bf16 weight, 8.59 GB: stage 0's one layer fits, stage 1's two do not, and
// the error is at the stage's first layer. The largest of the 2 slices
// holds 4 of the 8 tokens, so a layer's 1.05 MB of results count half.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @stages(%x: tensor<1x8x65536xbf16>) -> tensor<1x8x65536xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [4, 4]>} {
    // expected-remark @+1 {{stage 0 (layers 0-0): 8.59 GB of 16.00 GB per chip (54%): weights of layers 0-0 8.59 GB, activations in flight 524.29 kB}}
    %a = loom.layer 0 (%x) {stage = 0} : (tensor<1x8x65536xbf16>) -> tensor<1x8x65536xbf16> {
    ^bb0(%in: tensor<1x8x65536xbf16>):
      %h = loom.linear up %in : tensor<1x8x65536xbf16> -> tensor<1x8x65536xbf16>
      loom.yield %h : tensor<1x8x65536xbf16>
    }
    // expected-error @+1 {{stage 1 (layers 1-2) needs 17.18 GB of HBM per chip, more than the 16.00 GB of a tpu-v5e chip; largest items: weights of layers 1-2 17.18 GB, activations in flight 524.29 kB (largest layer: 1 at 8.59 GB)}}
    %b = loom.layer 1 (%a) {stage = 1} : (tensor<1x8x65536xbf16>) -> tensor<1x8x65536xbf16> {
    ^bb0(%in: tensor<1x8x65536xbf16>):
      %h = loom.linear up %in : tensor<1x8x65536xbf16> -> tensor<1x8x65536xbf16>
      loom.yield %h : tensor<1x8x65536xbf16>
    }
    %c = loom.layer 2 (%b) {stage = 1} : (tensor<1x8x65536xbf16>) -> tensor<1x8x65536xbf16> {
    ^bb0(%in: tensor<1x8x65536xbf16>):
      %h = loom.linear up %in : tensor<1x8x65536xbf16> -> tensor<1x8x65536xbf16>
      loom.yield %h : tensor<1x8x65536xbf16>
    }
    return %c : tensor<1x8x65536xbf16>
  }
}

// -----

// The embedding's table sits on the first stage, the LM head on the last:
// 100 x 128 x 2 B = 25.60 kB each. A layer (one causal attention over q, k,
// v of 64 tokens) keeps a KV cache of 2 x 64 x 128 x 2 B = 32.77 kB and has
// 16.38 kB of results; the largest slice holds 48 of the 64 tokens: 12.29 kB
// in flight.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @ends(%ids: tensor<1x64xi32>) -> tensor<1x64x100xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [48, 16]>} {
    %x = loom.embed %ids {vocab = 100} : tensor<1x64xi32> -> tensor<1x64x128xbf16>
    // expected-remark @+1 {{stage 0 (layers 0-0): 70.66 kB of 16.00 GB per chip (0%): KV cache 32.77 kB, embeddings and other ops before the first layer 25.60 kB, activations in flight 12.29 kB}}
    %a = loom.layer 0 (%x) {stage = 0} : (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16> {
    ^bb0(%in: tensor<1x64x128xbf16>):
      %h = loom.attention %in, %in, %in {heads = 2, kv_heads = 2, head_dim = 64, causal} : tensor<1x64x128xbf16>, tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      loom.yield %h : tensor<1x64x128xbf16>
    }
    // expected-remark @+1 {{stage 1 (layers 1-1): 70.66 kB of 16.00 GB per chip (0%): KV cache 32.77 kB, final norm, head and other ops after the last layer 25.60 kB, activations in flight 12.29 kB}}
    %b = loom.layer 1 (%a) {stage = 1} : (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16> {
    ^bb0(%in: tensor<1x64x128xbf16>):
      %h = loom.attention %in, %in, %in {heads = 2, kv_heads = 2, head_dim = 64, causal} : tensor<1x64x128xbf16>, tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      loom.yield %h : tensor<1x64x128xbf16>
    }
    %logits = loom.linear lm_head %b : tensor<1x64x128xbf16> -> tensor<1x64x100xbf16>
    return %logits : tensor<1x64x100xbf16>
  }
}

// -----

// expected-error @+1 {{loom-check-memory needs a target: run loom-set-target first (e.g. --loom-set-target=topology=v5e-16), or import with --target}}
module {
}
