module attributes {loom.model = #loom.model<name = "mini-llama", family = "llama", mode = prefill, batch = 1, seq = 64>, loom.parallel = #loom.parallel<tp = 2>, loom.target = #loom.target<"tpu-v5e", topology = "v5e-4", shape = [2, 2], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.97e+14, peak_int8 = 3.94e+14, mxu_tile = 128, mxu_efficiency = 0.9568, hbm_capacity = 1.6e+10, hbm_bandwidth = 8.192e+11, hbm_efficiency = 0.9, host_bandwidth = 1.6e+10, host_memory = 4.8e+10>, ici = #loom.ici<link_bandwidth = 4.5e+10, hop_latency = 1.0e-06>, calibration = #loom.calibration<file = "targets/tpu-v5e.json", name = "tpu-v5e-published", version = 1, program_dispatch = 0.000112, kernel_step = 2.672e-07, collective_sync = 2.365e-06, link_efficiency_ring = 0.9556, link_efficiency_line = 0.829>>} {
  func.func @mini_llama(%arg0: tensor<1x64xi32> {loom.name = "input_ids"}) -> tensor<1x64x50xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [64]>} {
    %0 = loom.embed %arg0 {loom.split = #loom.split<vocab, 2>, vocab = 50 : i64} : tensor<1x64xi32> -> tensor<1x64x128xbf16>
    %1 = loom.all_reduce %0 {group = "tp", group_size = 2 : i64} : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
    %2 = loom.layer 0(%1) {kind = "llama", stage = 0 : i64} : (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16> {
    ^bb0(%arg1: tensor<1x64x128xbf16>):
      %6 = loom.rms_norm %arg1 : tensor<1x64x128xbf16>
      %7 = loom.linear  q %6 {loom.split = #loom.split<column, 2>} : tensor<1x64x128xbf16> -> tensor<1x64x64xbf16>
      %8 = loom.linear  k %6 {loom.split = #loom.split<column, 2>} : tensor<1x64x128xbf16> -> tensor<1x64x64xbf16>
      %9 = loom.linear  v %6 {loom.split = #loom.split<column, 2>} : tensor<1x64x128xbf16> -> tensor<1x64x64xbf16>
      %10 = loom.rope %7 {head_dim = 64 : i64} : tensor<1x64x64xbf16>
      %11 = loom.rope %8 {head_dim = 64 : i64} : tensor<1x64x64xbf16>
      %12 = loom.attention %10, %11, %9 {causal, head_dim = 64 : i64, heads = 1 : i64, kv_heads = 1 : i64, loom.split = #loom.split<heads, 2>} : tensor<1x64x64xbf16>, tensor<1x64x64xbf16> -> tensor<1x64x64xbf16>
      %13 = loom.linear  o %12 {loom.split = #loom.split<row, 2>} : tensor<1x64x64xbf16> -> tensor<1x64x128xbf16>
      %14 = loom.all_reduce %13 {group = "tp", group_size = 2 : i64} : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %15 = loom.add %arg1, %14 : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      %16 = loom.rms_norm %15 : tensor<1x64x128xbf16>
      %17 = loom.linear  gate %16 {loom.split = #loom.split<column, 2>} : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %18 = loom.linear  up %16 {loom.split = #loom.split<column, 2>} : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %19 = loom.swiglu %17, %18 : tensor<1x64x128xbf16>
      %20 = loom.linear  down %19 {loom.split = #loom.split<row, 2>} : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %21 = loom.all_reduce %20 {group = "tp", group_size = 2 : i64} : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %22 = loom.add %15, %21 : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      loom.yield %22 : tensor<1x64x128xbf16>
    }
    %3 = loom.layer 1(%2) {kind = "llama", stage = 1 : i64} : (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16> {
    ^bb0(%arg1: tensor<1x64x128xbf16>):
      %6 = loom.rms_norm %arg1 : tensor<1x64x128xbf16>
      %7 = loom.linear  q %6 {loom.split = #loom.split<column, 2>} : tensor<1x64x128xbf16> -> tensor<1x64x64xbf16>
      %8 = loom.linear  k %6 {loom.split = #loom.split<column, 2>} : tensor<1x64x128xbf16> -> tensor<1x64x64xbf16>
      %9 = loom.linear  v %6 {loom.split = #loom.split<column, 2>} : tensor<1x64x128xbf16> -> tensor<1x64x64xbf16>
      %10 = loom.rope %7 {head_dim = 64 : i64} : tensor<1x64x64xbf16>
      %11 = loom.rope %8 {head_dim = 64 : i64} : tensor<1x64x64xbf16>
      %12 = loom.attention %10, %11, %9 {causal, head_dim = 64 : i64, heads = 1 : i64, kv_heads = 1 : i64, loom.split = #loom.split<heads, 2>} : tensor<1x64x64xbf16>, tensor<1x64x64xbf16> -> tensor<1x64x64xbf16>
      %13 = loom.linear  o %12 {loom.split = #loom.split<row, 2>} : tensor<1x64x64xbf16> -> tensor<1x64x128xbf16>
      %14 = loom.all_reduce %13 {group = "tp", group_size = 2 : i64} : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %15 = loom.add %arg1, %14 : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      %16 = loom.rms_norm %15 : tensor<1x64x128xbf16>
      %17 = loom.linear  gate %16 {loom.split = #loom.split<column, 2>} : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %18 = loom.linear  up %16 {loom.split = #loom.split<column, 2>} : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %19 = loom.swiglu %17, %18 : tensor<1x64x128xbf16>
      %20 = loom.linear  down %19 {loom.split = #loom.split<row, 2>} : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %21 = loom.all_reduce %20 {group = "tp", group_size = 2 : i64} : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %22 = loom.add %15, %21 : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      loom.yield %22 : tensor<1x64x128xbf16>
    }
    %4 = loom.rms_norm %3 : tensor<1x64x128xbf16>
    %5 = loom.linear  lm_head %4 {loom.split = #loom.split<vocab, 2>} : tensor<1x64x128xbf16> -> tensor<1x64x50xbf16>
    return %5 : tensor<1x64x50xbf16>
  }
}

