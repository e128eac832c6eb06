

// A router holds experts (its rule's experts factor): expert parallelism
// splits those tokens. The first MoE op in the layer is named.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @moe(%x: tensor<1x96x64xbf16>) -> tensor<1x96x64xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x96x64xbf16>) -> tensor<1x96x64xbf16> {
    ^bb0(%in: tensor<1x96x64xbf16>):
      // expected-error @+1 {{cannot split the sequence 3 ways: mixture-of-experts layers split their tokens by expert parallelism (loom-shard-experts), not by Ulysses; valid sequence-parallel degrees on v5e-4 with tp = 1: 1}}
      %b = loom.moe_route %in {experts = 8, top_k = 2} : tensor<1x96x64xbf16> -> tensor<1x192x64xbf16>
      %e = loom.moe_experts %b {experts = 8, top_k = 2, expert_inter = 224, tokens = 96} : tensor<1x192x64xbf16>
      %c = loom.moe_combine %e : tensor<1x192x64xbf16> -> tensor<1x96x64xbf16>
      loom.yield %c : tensor<1x96x64xbf16>
    }
    return %y : tensor<1x96x64xbf16>
  }
}

