

// With the group, the place beside tp is not sp's.
module attributes {loom.model = #loom.model<name = "moe", family = "mixtral", mode = prefill, batch = 2, seq = 16>, loom.parallel = #loom.parallel<tp = 2, ep = 4, ep_data = true>, loom.target = #loom.target<"tpu-v5e", topology = "v5e-8", shape = [2, 4]>} {
  func.func @moe(%x: tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    %y = loom.layer 0(%x) {kind = "mixtral"} : (tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    ^bb0(%h: tensor<2x16x64xbf16>):
      // expected-error @+1 {{is sharded 4 ways, but the module's sequence parallelism (loom.parallel's sp) is 1}}
      %a = loom.all_to_all %h {dim = 2 : i64, concat_dim = 1 : i64, group = "sp", group_size = 4 : i64} : tensor<2x16x64xbf16> -> tensor<2x64x16xbf16>
      %b = loom.all_to_all %a {dim = 1 : i64, concat_dim = 2 : i64, group = "sp", group_size = 4 : i64} : tensor<2x64x16xbf16> -> tensor<2x16x64xbf16>
      loom.yield %b : tensor<2x16x64xbf16>
    }
    return %y : tensor<2x16x64xbf16>
  }
}
