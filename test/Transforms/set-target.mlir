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

// -----

// An unplanned module's target is replaced; its other attributes stay.
// CHECK-LABEL: module attributes {loom.model = #loom.model<name = "m", family = "llama", mode = prefill, batch = 1, seq = 8>, loom.target = #loom.target<"tpu-v5e", topology = "v5e-8", shape = [2, 4],
module attributes {loom.model = #loom.model<name = "m", family = "llama", mode = prefill, batch = 1, seq = 8>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
}

// -----

// A planned module (it has a layout) keeps the target it was planned for:
// setting the same one again is no change ...
// CHECK-LABEL: module attributes {loom.parallel = #loom.parallel<tp = 2>, loom.target = #loom.target<"tpu-v5e", topology = "v5e-8", shape = [2, 4],
module attributes {loom.parallel = #loom.parallel<tp = 2>, loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
}

// -----

// ... and another is refused.
// expected-error @+1 {{loom-set-target: the module is already planned for topology v5e-4 of tpu-v5e; re-plan from the imported model for v5e-8}}
module attributes {loom.parallel = #loom.parallel<tp = 2>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
}

// Any bundled target's topology: v5p-8 is 2 x 2 x 1 chips of tpu-v5p.
// V5P: module attributes {loom.target = #loom.target<"tpu-v5p", topology = "v5p-8", shape = [2, 2, 1], wrap_axes = [], chip = #loom.chip<peak_bf16 = 4.59e+14,

// UNKNOWN: error: loom-set-target: unknown topology 'v5e-3'; tpu-v5e has: v5e-1 (1x1), v5e-4 (2x2), v5e-8 (2x4), v5e-16 (4x4), v5e-32 (4x8), v5e-64 (8x8), v5e-128 (8x16), v5e-256 (16x16) (tpu-v5p's are listed in targets/tpu-v5p.json)
// NONE: error: loom-set-target needs a topology, e.g. --loom-set-target=topology=v5e-16
