

// A target no file describes, written in full.
// CHECK: #loom.target<"lab-tpu", topology = "2x4", shape = [2, 4], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.0e+14, peak_int8 = 2.0e+14, mxu_tile = 256, mxu_efficiency = 0.75, hbm_capacity = 3.2e+10, hbm_bandwidth = 1.5e+12, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 1.0e+11, hop_latency = 2.5e-06>, calibration = #loom.calibration<file = "", name = "nominal", version = 0, program_dispatch = 0.0, kernel_step = 0.0, collective_sync = 0.0, link_efficiency_ring = 1.0, link_efficiency_line = 1.0>>
module attributes {loom.target = #loom.target<"lab-tpu", shape = [2, 4], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.0e14, peak_int8 = 2.0e14, mxu_tile = 256, mxu_efficiency = 0.75, hbm_capacity = 3.2e10, hbm_bandwidth = 1.5e12, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 1.0e11, hop_latency = 2.5e-6>>} {
}

