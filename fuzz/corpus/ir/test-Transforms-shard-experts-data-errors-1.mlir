

// Six experts do not split 4 ways.
module attributes {loom.model = #loom.model<name = "moe", family = "mixtral", mode = prefill, batch = 8, seq = 16>, loom.target = #loom.target<"tpu-v5e", topology = "v5e-8", shape = [2, 4]>} {
  func.func @moe(%x: tensor<8x16x64xbf16>) -> tensor<8x16x64xbf16> {
    %y = loom.layer 0(%x) {kind = "mixtral"} : (tensor<8x16x64xbf16>) -> tensor<8x16x64xbf16> {
    ^bb0(%h: tensor<8x16x64xbf16>):
      %r = loom.moe_route %h {experts = 6, top_k = 2} : tensor<8x16x64xbf16> -> tensor<1x256x64xbf16>
      // expected-error @+1 {{ep = 4 does not divide the 6 experts of this layer; valid degrees: 2}}
      %e = loom.moe_experts %r {expert_inter = 32, experts = 6, tokens = 128, top_k = 2} : tensor<1x256x64xbf16>
      %c = loom.moe_combine %e : tensor<1x256x64xbf16> -> tensor<8x16x64xbf16>
      loom.yield %c : tensor<8x16x64xbf16>
    }
    return %y : tensor<8x16x64xbf16>
  }
}

