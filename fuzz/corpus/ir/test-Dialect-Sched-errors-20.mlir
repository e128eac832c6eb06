

// Figures of a target that gives no host link: no host transfer can run.
sched.program attributes {target = #loom.target<"my-chip", shape = [2, 2], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.97e+14, peak_int8 = 3.94e+14, mxu_tile = 128, mxu_efficiency = 0.9, hbm_capacity = 1.6e+10, hbm_bandwidth = 8.192e+11, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 4.5e+10, hop_latency = 1.0e-06>>} {
  sched.chip 0 {
    // expected-error @+1 {{'sched.host_store' op host_store moves data over the chip's host link, but the target gives no host link figures (host_bandwidth and host_memory)}}
    %s = sched.host_store 64 "x"
    %l = sched.host_load %s 64 "x"
  }
}
