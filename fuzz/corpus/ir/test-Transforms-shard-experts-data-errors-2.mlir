

// tp 2 x ep 4 = 8 chips do not fit on 4; tp 2 x ep 2 would.
// expected-error @+1 {{ep = 4 cannot be a group of its own beside tp = 2: stages of tp x ep = 8 chips do not tile the 4 chips of v5e-4; valid degrees: 2}}
module attributes {loom.model = #loom.model<name = "moe", family = "mixtral", mode = prefill, batch = 8, seq = 16>, loom.target = #loom.target<"tpu-v5e", topology = "v5e-4", shape = [2, 2]>} {
  func.func @moe(%x: tensor<8x16x64xbf16>) -> tensor<8x16x64xbf16> {
    %y = loom.layer 0(%x) {kind = "mixtral"} : (tensor<8x16x64xbf16>) -> tensor<8x16x64xbf16> {
    ^bb0(%h: tensor<8x16x64xbf16>):
      %r = loom.moe_route %h {experts = 8, top_k = 2} : tensor<8x16x64xbf16> -> tensor<1x256x64xbf16>
      %e = loom.moe_experts %r {expert_inter = 32, experts = 8, tokens = 128, top_k = 2} : tensor<1x256x64xbf16>
      %c = loom.moe_combine %e : tensor<1x256x64xbf16> -> tensor<8x16x64xbf16>
      loom.yield %c : tensor<8x16x64xbf16>
    }
    return %y : tensor<8x16x64xbf16>
  }
}

