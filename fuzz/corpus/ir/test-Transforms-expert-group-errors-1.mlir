

// A module without the group (ep within tp) has no "ep" collectives.
module attributes {loom.model = #loom.model<name = "moe", family = "mixtral", mode = prefill, batch = 2, seq = 16>, loom.parallel = #loom.parallel<tp = 2>, loom.target = #loom.target<"tpu-v5e", topology = "v5e-8", shape = [2, 4]>} {
  func.func @moe(%x: tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    %y = loom.layer 0(%x) {kind = "mixtral"} : (tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    ^bb0(%h: tensor<2x16x64xbf16>):
      %r = loom.moe_route %h {experts = 8, top_k = 2} : tensor<2x16x64xbf16> -> tensor<4x16x64xbf16>
      // expected-error @+1 {{is sharded 4 ways, but the module's expert-parallel group of its own (loom.parallel's ep with ep_data) is 1}}
      %d = loom.all_to_all %r {dim = 0 : i64, group = "ep", group_size = 4 : i64} : tensor<4x16x64xbf16> -> tensor<4x16x64xbf16>
      %c = loom.moe_combine %d : tensor<4x16x64xbf16> -> tensor<2x16x64xbf16>
      loom.yield %c : tensor<2x16x64xbf16>
    }
    return %y : tensor<2x16x64xbf16>
  }
}

