// RUN: loom-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// The printed form parses back to the same attribute.
// RUN: loom-opt %s -split-input-file -verify-diagnostics | loom-opt -split-input-file | FileCheck %s

// A bundled target's short form is completed from its file: every figure
// the target is priced with travels in the attribute.
// CHECK: module attributes {loom.target = #loom.target<"tpu-v5e", topology = "v5e-256", shape = [16, 16], wrap_axes = [0, 1], chip = #loom.chip<peak_bf16 = 1.97e+14, peak_int8 = 3.94e+14, mxu_tile = 128, mxu_efficiency = 0.9568, hbm_capacity = 1.6e+10, hbm_bandwidth = 8.192e+11, hbm_efficiency = 0.9, host_bandwidth = 1.6e+10, host_memory = 4.8e+10>, ici = #loom.ici<link_bandwidth = 4.5e+10, hop_latency = 1.0e-06>, calibration = #loom.calibration<file = "targets/tpu-v5e.json", name = "tpu-v5e-published", version = 1, program_dispatch = 0.000112, kernel_step = 2.672e-07, collective_sync = 2.365e-06, link_efficiency_ring = 0.9556, link_efficiency_line = 0.829>>}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [16, 16]>} {
}

