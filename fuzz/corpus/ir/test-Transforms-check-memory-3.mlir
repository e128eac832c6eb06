

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

