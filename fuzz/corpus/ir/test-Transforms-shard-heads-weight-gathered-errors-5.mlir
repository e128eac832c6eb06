

// A MoE layer's router, experts and combine move token copies through a
// dispatch buffer (their rules' expert groups): the router is named.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
  func.func @moe(%x: tensor<4x8x64xbf16>) -> tensor<4x8x64xbf16> {
    %y = loom.layer 0 (%x) : (tensor<4x8x64xbf16>) -> tensor<4x8x64xbf16> {
    ^bb0(%in: tensor<4x8x64xbf16>):
      // expected-error @+1 {{weight-gathered gathers dense layers' weights; MoE layers are not split this way (use tp or ep)}}
      %b = loom.moe_route %in {experts = 8, top_k = 2} : tensor<4x8x64xbf16> -> tensor<1x64x64xbf16>
      %e = loom.moe_experts %b {experts = 8, top_k = 2, expert_inter = 32, tokens = 32} : tensor<1x64x64xbf16>
      %c = loom.moe_combine %e : tensor<1x64x64xbf16> -> tensor<4x8x64xbf16>
      loom.yield %c : tensor<4x8x64xbf16>
    }
    return %y : tensor<4x8x64xbf16>
  }
}

