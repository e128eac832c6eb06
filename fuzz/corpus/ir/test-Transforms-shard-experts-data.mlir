// loom-shard-experts data=true: the ep chips are a group
// of their own beside the tp group. Every tensor's batch is split ep ways,
// each chip routes all of its tokens, and the dispatch and combine
// all-to-alls run over the group "ep" alone; each chip holds experts / ep
// experts at the 1/tp of their width loom-shard-heads left.
// RUN: loom-opt %s -split-input-file -loom-shard-heads=tp=2 -loom-shard-experts="ep=4 data=true" -verify-diagnostics | FileCheck %s
// RUN: loom-opt %s -split-input-file -loom-shard-heads=tp=2 -loom-shard-experts="ep=4 data=true" | loom-opt -split-input-file | FileCheck %s
// The named pipeline takes the layout as loom-plan passes it (ep-layout=data).
// RUN: loom-opt %s -loom-plan-pipeline="tp=2 ep=4 ep-layout=data stages=1" | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: loom.parallel = #loom.parallel<tp = 2, ep = 4, ep_data = true>
// PIPELINE: loom.all_to_all {{.*}}group = "ep", group_size = 4

// 8 sequences of 16 tokens, 8 experts, top 2, on 8 chips (tp 2 x ep 4).
// A chip's 2 sequences are 32 tokens, 64 copies, 16 to each of the 4; the
// busiest chip receives 8 x 16 x 2 / 4 = 64 copies, 16 from each sender.
// CHECK: loom.model = #loom.model<name = "moe", family = "mixtral", mode = prefill, batch = 2, seq = 16>
// CHECK-SAME: loom.parallel = #loom.parallel<tp = 2, ep = 4, ep_data = true>
// CHECK: func.func @moe(%{{.*}}: tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16>
// CHECK: loom.layer 0(%{{.*}}) {{.*}}: (tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16>
// CHECK: %[[ROUTE:.*]] = loom.moe_route %{{.*}} {experts = 8 : i64, top_k = 2 : i64} : tensor<2x16x64xbf16> -> tensor<4x16x64xbf16>
// CHECK-NEXT: %[[DISPATCH:.*]] = loom.all_to_all %[[ROUTE]] {dim = 0 : i64, group = "ep", group_size = 4 : i64} : tensor<4x16x64xbf16> -> tensor<4x16x64xbf16>
// CHECK-NEXT: %[[EXPERTS:.*]] = loom.moe_experts %[[DISPATCH]] {ep = 4 : i64, expert_inter = 16 : i64, experts = 8 : i64, loom.split = #loom.split<column, 2>, tokens = 128 : i64, top_k = 2 : i64} : tensor<4x16x64xbf16>
// CHECK-NEXT: %[[COMBINE:.*]] = loom.all_to_all %[[EXPERTS]] {dim = 0 : i64, group = "ep", group_size = 4 : i64}
// CHECK-NEXT: %[[SUM:.*]] = loom.moe_combine %[[COMBINE]] : tensor<4x16x64xbf16> -> tensor<2x16x64xbf16>
// CHECK-NEXT: loom.all_reduce %[[SUM]] {group = "tp", group_size = 2 : i64}
module attributes {loom.model = #loom.model<name = "moe", family = "mixtral", mode = prefill, batch = 8, seq = 16>, loom.target = #loom.target<"tpu-v5e", topology = "v5e-8", shape = [2, 4]>} {
  func.func @moe(%x: tensor<8x16x64xbf16>) -> tensor<8x16x64xbf16> {
    %y = loom.layer 0(%x) {kind = "mixtral"} : (tensor<8x16x64xbf16>) -> tensor<8x16x64xbf16> {
    ^bb0(%h: tensor<8x16x64xbf16>):
      %n = loom.rms_norm %h : tensor<8x16x64xbf16>
      %r = loom.moe_route %n {experts = 8, top_k = 2} : tensor<8x16x64xbf16> -> tensor<1x256x64xbf16>
      %e = loom.moe_experts %r {expert_inter = 32, experts = 8, tokens = 128, top_k = 2} : tensor<1x256x64xbf16>
      %c = loom.moe_combine %e : tensor<1x256x64xbf16> -> tensor<8x16x64xbf16>
      %s = loom.add %h, %c : tensor<8x16x64xbf16>, tensor<8x16x64xbf16>
      loom.yield %s : tensor<8x16x64xbf16>
    }
    return %y : tensor<8x16x64xbf16>
  }
}
