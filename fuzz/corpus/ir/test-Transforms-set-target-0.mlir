// loom-set-target puts a bundled target on a module, with every figure the
// passes price with (a user's target file: test/Target/target-file.mlir).
// RUN: loom-opt %s -split-input-file -verify-diagnostics --loom-set-target=topology=v5e-8 | FileCheck %s
// RUN: echo "module {}" | loom-opt --loom-set-target=topology=v5p-8 | FileCheck %s --check-prefix=V5P
// RUN: echo "module {}" | not loom-opt --loom-set-target=topology=v5e-3 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: echo "module {}" | not loom-opt --loom-set-target 2>&1 | FileCheck %s --check-prefix=NONE

// The figures of targets/tpu-v5e.json, and v5e-8's 2 x 4 chips with no
// wraparound (v5e wraps only axes of 16 chips).
// CHECK-LABEL: module attributes {loom.target = #loom.target<"tpu-v5e", topology = "v5e-8", shape = [2, 4], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.97e+14, peak_int8 = 3.94e+14, mxu_tile = 128, mxu_efficiency = 0.9568, hbm_capacity = 1.6e+10, hbm_bandwidth = 8.192e+11, hbm_efficiency = 0.9, host_bandwidth = 1.6e+10, host_memory = 4.8e+10>, ici = #loom.ici<link_bandwidth = 4.5e+10, hop_latency = 1.0e-06>, calibration = #loom.calibration<file = "targets/tpu-v5e.json", name = "tpu-v5e-published", version = 1, program_dispatch = 0.000112, kernel_step = 2.672e-07, collective_sync = 2.365e-06, link_efficiency_ring = 0.9556, link_efficiency_line = 0.829>>}
module {
}

