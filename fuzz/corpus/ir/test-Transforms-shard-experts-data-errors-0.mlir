// What loom-shard-experts data=true refuses, naming the valid degrees: ep
// must divide the batch (its chips split it) and every layer's experts, and
// stages of tp x ep chips must tile the slice.
// RUN: loom-opt %s -split-input-file -loom-shard-heads=tp=2 -loom-shard-experts="ep=4 data=true" -verify-diagnostics

// A batch of 2 sequences does not split 4 ways.
// expected-error @+1 {{ep = 4 cannot be a group of its own beside tp = 2: its chips split the batch of 2; valid degrees: 2}}
module attributes {loom.model = #loom.model<name = "moe", family = "mixtral", mode = prefill, batch = 2, seq = 16>, loom.target = #loom.target<"tpu-v5e", topology = "v5e-8", shape = [2, 4]>} {
  func.func @moe(%x: tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    %y = loom.layer 0(%x) {kind = "mixtral"} : (tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    ^bb0(%h: tensor<2x16x64xbf16>):
      %r = loom.moe_route %h {experts = 8, top_k = 2} : tensor<2x16x64xbf16> -> tensor<1x64x64xbf16>
      %e = loom.moe_experts %r {expert_inter = 32, experts = 8, tokens = 32, top_k = 2} : tensor<1x64x64xbf16>
      %c = loom.moe_combine %e : tensor<1x64x64xbf16> -> tensor<2x16x64xbf16>
      loom.yield %c : tensor<2x16x64xbf16>
    }
    return %y : tensor<2x16x64xbf16>
  }
}

