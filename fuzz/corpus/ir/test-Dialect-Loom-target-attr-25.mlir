

// expected-error @+1 {{3 chips per host neither divide a slice's 8 chips nor are a multiple of them}}
module attributes {loom.target = #loom.target<"lab-tpu", shape = [2, 4], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.0e14, peak_int8 = 2.0e14, mxu_tile = 256, mxu_efficiency = 0.75, hbm_capacity = 3.2e10, hbm_bandwidth = 1.5e12, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 1.0e11, hop_latency = 2.5e-6>, dcn = #loom.dcn<slices = 2, chips_per_host = 3, bandwidth = 2.5e10, latency = 5.0e-5>>} {
}

