module attributes {loom.model = #loom.model<name = "moe", family = "mixtral", mode = prefill, batch = 2, seq = 16>, loom.parallel = #loom.parallel<tp = 2, ep = 4, ep_data = true>, loom.target = #loom.target<"tpu-v5e", topology = "v5e-8", shape = [2, 4], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.97e+14, peak_int8 = 3.94e+14, mxu_tile = 128, mxu_efficiency = 0.9568, hbm_capacity = 1.6e+10, hbm_bandwidth = 8.192e+11, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 4.5e+10, hop_latency = 1.0e-06>, calibration = #loom.calibration<file = "targets/tpu-v5e.json", name = "tpu-v5e-published", version = 1, program_dispatch = 0.000112, kernel_step = 2.672e-07, collective_sync = 2.365e-06, link_efficiency_ring = 0.9556, link_efficiency_line = 0.829>>} {
  func.func @moe(%arg0: tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [16]>} {
    %0 = loom.layer 0(%arg0) {kind = "mixtral", stage = 0 : i64} : (tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
    ^bb0(%arg1: tensor<2x16x64xbf16>):
      %1 = loom.rms_norm %arg1 : tensor<2x16x64xbf16>
      %2 = loom.moe_route %1 {experts = 8 : i64, top_k = 2 : i64} : tensor<2x16x64xbf16> -> tensor<4x16x64xbf16>
      %3 = loom.all_to_all %2 {dim = 0 : i64, group = "ep", group_size = 4 : i64} : tensor<4x16x64xbf16> -> tensor<4x16x64xbf16>
      %4 = loom.moe_experts %3 {ep = 4 : i64, expert_inter = 16 : i64, experts = 8 : i64, loom.split = #loom.split<column, 2>, tokens = 128 : i64, top_k = 2 : i64} : tensor<4x16x64xbf16>
      %5 = loom.all_to_all %4 {dim = 0 : i64, group = "ep", group_size = 4 : i64} : tensor<4x16x64xbf16> -> tensor<4x16x64xbf16>
      %6 = loom.moe_combine %5 : tensor<4x16x64xbf16> -> tensor<2x16x64xbf16>
      %7 = loom.all_reduce %6 {group = "tp", group_size = 2 : i64} : tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
      %8 = loom.add %arg1, %7 : tensor<2x16x64xbf16>, tensor<2x16x64xbf16>
      loom.yield %8 : tensor<2x16x64xbf16>
    }
    return %0 : tensor<2x16x64xbf16>
  }
}

