

// A calibrated target in full: which fit priced it travels with its figures.
// CHECK: calibration = #loom.calibration<file = "lab.json", name = "lab-fit", version = 3, program_dispatch = 5.0e-05, kernel_step = 1.0e-07, collective_sync = 2.0e-06, link_efficiency_ring = 0.9, link_efficiency_line = 0.8>>
module attributes {loom.target = #loom.target<"lab-tpu", shape = [2, 4], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.0e14, peak_int8 = 2.0e14, mxu_tile = 256, mxu_efficiency = 0.75, hbm_capacity = 3.2e10, hbm_bandwidth = 1.5e12, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 1.0e11, hop_latency = 2.5e-6>, calibration = #loom.calibration<file = "lab.json", name = "lab-fit", version = 3, program_dispatch = 5.0e-5, kernel_step = 1.0e-7, collective_sync = 2.0e-6, link_efficiency_ring = 0.9, link_efficiency_line = 0.8>>} {
}

