// The passes after sharding read an expert-parallel group of its own from
// #loom.parallel (ep with ep_data) and hold every op over the group "ep"
// to it: a collective over a group the module does not have, or of another
// size, is refused at the op.
// RUN: loom-opt %s -split-input-file -loom-partition-layers=stages=1 -verify-diagnostics

// The group has 4 chips, the all-to-all names 2.
module attributes {loom.model = #loom.model<name = "moe", family = "mixtral", mode = prefill, batch = 2, seq = 16>, loom.parallel = #loom.parallel<tp = 2, ep = 4, ep_data = true>, loom.target = #loom.target<"tpu-v5e", topology = "v5e-8", shape = [2, 4]>} {
  func.func @moe(%x: tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    %y = loom.layer 0(%x) {kind = "mixtral"} : (tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    ^bb0(%h: tensor<2x16x64xbf16>):
      %r = loom.moe_route %h {experts = 8, top_k = 2} : tensor<2x16x64xbf16> -> tensor<4x16x64xbf16>
      // expected-error @+1 {{is sharded 2 ways, but the module's expert-parallel group of its own (loom.parallel's ep with ep_data) is 4}}
      %d = loom.all_to_all %r {dim = 0 : i64, group = "ep", group_size = 2 : i64} : tensor<4x16x64xbf16> -> tensor<4x16x64xbf16>
      %e = loom.moe_experts %d {ep = 4, expert_inter = 16, experts = 8, tokens = 128, top_k = 2} : tensor<4x16x64xbf16>
      %c = loom.moe_combine %e : tensor<4x16x64xbf16> -> tensor<2x16x64xbf16>
      loom.yield %c : tensor<2x16x64xbf16>
    }
    return %y : tensor<2x16x64xbf16>
  }
}

