module attributes {loom.model = #loom.model<name = "mini-llama", family = "llama", mode = prefill, batch = 1, seq = 64>, loom.target = #loom.target<"tpu-v5e", topology = "v5e-4", shape = [2, 2], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.97e+14, peak_int8 = 3.94e+14, mxu_tile = 128, mxu_efficiency = 0.9568, hbm_capacity = 1.6e+10, hbm_bandwidth = 8.192e+11, hbm_efficiency = 0.9, host_bandwidth = 1.6e+10, host_memory = 4.8e+10>, ici = #loom.ici<link_bandwidth = 4.5e+10, hop_latency = 1.0e-06>, calibration = #loom.calibration<file = "targets/tpu-v5e.json", name = "tpu-v5e-published", version = 1, program_dispatch = 0.000112, kernel_step = 2.672e-07, collective_sync = 2.365e-06, link_efficiency_ring = 0.9556, link_efficiency_line = 0.829>>} {
  func.func @mini_llama(%arg0: tensor<1x64xi32> {loom.name = "input_ids"}) -> tensor<1x64x100xbf16> {
    %0 = loom.embed %arg0 {vocab = 100 : i64} : tensor<1x64xi32> -> tensor<1x64x128xbf16>
    %1 = loom.layer 0(%0) {kind = "llama"} : (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16> {
    ^bb0(%arg1: tensor<1x64x128xbf16>):
      %5 = loom.rms_norm %arg1 : tensor<1x64x128xbf16>
      %6 = loom.linear  q %5 : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %7 = loom.linear  k %5 : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %8 = loom.linear  v %5 : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %9 = loom.rope %6 {head_dim = 64 : i64} : tensor<1x64x128xbf16>
      %10 = loom.rope %7 {head_dim = 64 : i64} : tensor<1x64x128xbf16>
      %11 = loom.attention %9, %10, %8 {causal, head_dim = 64 : i64, heads = 2 : i64, kv_heads = 2 : i64} : tensor<1x64x128xbf16>, tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %12 = loom.linear  o %11 : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %13 = loom.add %arg1, %12 : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      %14 = loom.rms_norm %13 : tensor<1x64x128xbf16>
      %15 = loom.linear  gate %14 : tensor<1x64x128xbf16> -> tensor<1x64x256xbf16>
      %16 = loom.linear  up %14 : tensor<1x64x128xbf16> -> tensor<1x64x256xbf16>
      %17 = loom.swiglu %15, %16 : tensor<1x64x256xbf16>
      %18 = loom.linear  down %17 : tensor<1x64x256xbf16> -> tensor<1x64x128xbf16>
      %19 = loom.add %13, %18 : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      loom.yield %19 : tensor<1x64x128xbf16>
    }
    %2 = loom.layer 1(%1) {kind = "llama"} : (tensor<1x64x128xbf16>) -> tensor<1x64x128xbf16> {
    ^bb0(%arg1: tensor<1x64x128xbf16>):
      %5 = loom.rms_norm %arg1 : tensor<1x64x128xbf16>
      %6 = loom.linear  q %5 : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %7 = loom.linear  k %5 : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %8 = loom.linear  v %5 : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %9 = loom.rope %6 {head_dim = 64 : i64} : tensor<1x64x128xbf16>
      %10 = loom.rope %7 {head_dim = 64 : i64} : tensor<1x64x128xbf16>
      %11 = loom.attention %9, %10, %8 {causal, head_dim = 64 : i64, heads = 2 : i64, kv_heads = 2 : i64} : tensor<1x64x128xbf16>, tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %12 = loom.linear  o %11 : tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %13 = loom.add %arg1, %12 : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      %14 = loom.rms_norm %13 : tensor<1x64x128xbf16>
      %15 = loom.linear  gate %14 : tensor<1x64x128xbf16> -> tensor<1x64x256xbf16>
      %16 = loom.linear  up %14 : tensor<1x64x128xbf16> -> tensor<1x64x256xbf16>
      %17 = loom.swiglu %15, %16 : tensor<1x64x256xbf16>
      %18 = loom.linear  down %17 : tensor<1x64x256xbf16> -> tensor<1x64x128xbf16>
      %19 = loom.add %13, %18 : tensor<1x64x128xbf16>, tensor<1x64x128xbf16>
      loom.yield %19 : tensor<1x64x128xbf16>
    }
    %3 = loom.rms_norm %2 : tensor<1x64x128xbf16>
    %4 = loom.linear  lm_head %3 : tensor<1x64x128xbf16> -> tensor<1x64x100xbf16>
    return %4 : tensor<1x64x100xbf16>
  }
}

