// RUN: loom-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// The printed form parses back to the same attribute.
// RUN: loom-opt %s -split-input-file -verify-diagnostics | loom-opt -split-input-file | FileCheck %s

// A bundled target's short form is completed from its file: every figure
// the target is priced with travels in the attribute.
// CHECK: module attributes {loom.target = #loom.target<"tpu-v5e", topology = "v5e-256", shape = [16, 16], wrap_axes = [0, 1], chip = #loom.chip<peak_bf16 = 1.97e+14, peak_int8 = 3.94e+14, mxu_tile = 128, mxu_efficiency = 0.9568, hbm_capacity = 1.6e+10, hbm_bandwidth = 8.192e+11, hbm_efficiency = 0.9, host_bandwidth = 1.6e+10, host_memory = 4.8e+10>, ici = #loom.ici<link_bandwidth = 4.5e+10, hop_latency = 1.0e-06>, calibration = #loom.calibration<file = "targets/tpu-v5e.json", name = "tpu-v5e-published", version = 1, program_dispatch = 0.000112, kernel_step = 2.672e-07, collective_sync = 2.365e-06, link_efficiency_ring = 0.9556, link_efficiency_line = 0.829>>}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [16, 16]>} {
}

// -----

// v5e wraps an axis of 16 chips only: an 8x16 topology wraps its long axis.
// CHECK: #loom.target<"tpu-v5e", topology = "v5e-128", shape = [8, 16], wrap_axes = [1],
module attributes {loom.target = #loom.target<"tpu-v5e", topology = "v5e-128">} {
}

// -----

// v5p has no published measurements to fit: its figures are nominal.
// CHECK: #loom.target<"tpu-v5p", topology = "v5p-128", shape = [4, 4, 4], wrap_axes = [0, 1, 2],
// CHECK-SAME: calibration = #loom.calibration<file = "targets/tpu-v5p.json", name = "nominal", version = 0, program_dispatch = 0.0,
module attributes {loom.target = #loom.target<"tpu-v5p", shape = [4, 4, 4]>} {
}

// -----

// A target no file describes, written in full.
// CHECK: #loom.target<"lab-tpu", topology = "2x4", shape = [2, 4], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.0e+14, peak_int8 = 2.0e+14, mxu_tile = 256, mxu_efficiency = 0.75, hbm_capacity = 3.2e+10, hbm_bandwidth = 1.5e+12, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 1.0e+11, hop_latency = 2.5e-06>, calibration = #loom.calibration<file = "", name = "nominal", version = 0, program_dispatch = 0.0, kernel_step = 0.0, collective_sync = 0.0, link_efficiency_ring = 1.0, link_efficiency_line = 1.0>>
module attributes {loom.target = #loom.target<"lab-tpu", shape = [2, 4], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.0e14, peak_int8 = 2.0e14, mxu_tile = 256, mxu_efficiency = 0.75, hbm_capacity = 3.2e10, hbm_bandwidth = 1.5e12, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 1.0e11, hop_latency = 2.5e-6>>} {
}

// -----

// The host link's figures are optional: printed when given, and checked.
// CHECK: hbm_efficiency = 0.9, host_bandwidth = 2.0e+10, host_memory = 6.4e+10>
module attributes {loom.target = #loom.target<"lab-tpu", shape = [2, 4], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.0e14, peak_int8 = 2.0e14, mxu_tile = 256, mxu_efficiency = 0.75, hbm_capacity = 3.2e10, hbm_bandwidth = 1.5e12, hbm_efficiency = 0.9, host_bandwidth = 2.0e10, host_memory = 6.4e10>, ici = #loom.ici<link_bandwidth = 1.0e11, hop_latency = 2.5e-6>>} {
}

// -----

// expected-error @+1 {{host_bandwidth must be at least 1 bytes/s, got 0.5}}
module attributes {loom.target = #loom.target<"lab-tpu", shape = [2, 4], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.0e14, peak_int8 = 2.0e14, mxu_tile = 256, mxu_efficiency = 0.75, hbm_capacity = 3.2e10, hbm_bandwidth = 1.5e12, hbm_efficiency = 0.9, host_bandwidth = 0.5>, ici = #loom.ici<link_bandwidth = 1.0e11, hop_latency = 2.5e-6>>} {
}

// -----

// A calibrated target in full: which fit priced it travels with its figures.
// CHECK: calibration = #loom.calibration<file = "lab.json", name = "lab-fit", version = 3, program_dispatch = 5.0e-05, kernel_step = 1.0e-07, collective_sync = 2.0e-06, link_efficiency_ring = 0.9, link_efficiency_line = 0.8>>
module attributes {loom.target = #loom.target<"lab-tpu", shape = [2, 4], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.0e14, peak_int8 = 2.0e14, mxu_tile = 256, mxu_efficiency = 0.75, hbm_capacity = 3.2e10, hbm_bandwidth = 1.5e12, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 1.0e11, hop_latency = 2.5e-6>, calibration = #loom.calibration<file = "lab.json", name = "lab-fit", version = 3, program_dispatch = 5.0e-5, kernel_step = 1.0e-7, collective_sync = 2.0e-6, link_efficiency_ring = 0.9, link_efficiency_line = 0.8>>} {
}

// -----

// expected-error @+1 {{link_efficiency_line must be a fraction in [0.01, 1], got 1.2}}
module attributes {loom.target = #loom.target<"lab-tpu", shape = [2, 4], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.0e14, peak_int8 = 2.0e14, mxu_tile = 256, mxu_efficiency = 0.75, hbm_capacity = 3.2e10, hbm_bandwidth = 1.5e12, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 1.0e11, hop_latency = 2.5e-6>, calibration = #loom.calibration<file = "lab.json", name = "lab-fit", version = 3, program_dispatch = 5.0e-5, kernel_step = 1.0e-7, collective_sync = 2.0e-6, link_efficiency_ring = 0.9, link_efficiency_line = 1.2>>} {
}

// -----

// expected-error @+1 {{program_dispatch must be in [0, 1] s, got -1}}
module attributes {loom.target = #loom.target<"lab-tpu", shape = [2, 4], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.0e14, peak_int8 = 2.0e14, mxu_tile = 256, mxu_efficiency = 0.75, hbm_capacity = 3.2e10, hbm_bandwidth = 1.5e12, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 1.0e11, hop_latency = 2.5e-6>, calibration = #loom.calibration<file = "lab.json", name = "lab-fit", version = 3, program_dispatch = -1.0, kernel_step = 1.0e-7, collective_sync = 2.0e-6, link_efficiency_ring = 0.9, link_efficiency_line = 0.8>>} {
}

// -----

// expected-error @+1 {{target 'tpu-v5e' has no 3x4 topology; valid topologies: v5e-1 (1x1), v5e-4 (2x2), v5e-8 (2x4), v5e-16 (4x4), v5e-32 (4x8), v5e-64 (8x8), v5e-128 (8x16), v5e-256 (16x16)}}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [3, 4]>} {
}

// -----

// expected-error @+1 {{topology 'v5e-16' of 'tpu-v5e' is 4x4, not 2x2}}
module attributes {loom.target = #loom.target<"tpu-v5e", topology = "v5e-16", shape = [2, 2]>} {
}

// -----

// expected-error @+1 {{unknown target 'tpu-v9' (bundled: tpu-v5e, tpu-v5p); give its figures, or set it with loom-set-target="file=... topology=..."}}
module attributes {loom.target = #loom.target<"tpu-v9", shape = [4, 4]>} {
}

// -----

// expected-error @+1 {{target 'tpu-v5e' gives some of its figures; give shape, wrap_axes, chip and ici together, or none for a bundled target}}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2], ici = #loom.ici<link_bandwidth = 1.0e11, hop_latency = 1.0e-6>>} {
}

// -----

// expected-error @+1 {{unknown key 'slice' (known: topology, shape, wrap_axes, chip, ici, calibration, dcn)}}
module attributes {loom.target = #loom.target<"tpu-v5e", slice = "v5e-16">} {
}

// -----

// expected-error @+1 {{wrap_axes must list axes of the 2-D shape in increasing order}}
module attributes {loom.target = #loom.target<"lab-tpu", shape = [2, 4], wrap_axes = [2], chip = #loom.chip<peak_bf16 = 1.0e14, peak_int8 = 2.0e14, mxu_tile = 256, mxu_efficiency = 0.75, hbm_capacity = 3.2e10, hbm_bandwidth = 1.5e12, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 1.0e11, hop_latency = 2.5e-6>>} {
}

// -----

// expected-error @+1 {{topology 2097152x1 has 2097152 chips; Loom plans at most 1048576}}
module attributes {loom.target = #loom.target<"lab-tpu", shape = [2097152, 1], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.0e14, peak_int8 = 2.0e14, mxu_tile = 256, mxu_efficiency = 0.75, hbm_capacity = 3.2e10, hbm_bandwidth = 1.5e12, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 1.0e11, hop_latency = 2.5e-6>>} {
}

// -----

// expected-error @+1 {{mxu_efficiency must be a fraction in [0.01, 1], got 1.5}}
module attributes {loom.target = #loom.target<"lab-tpu", shape = [2, 4], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.0e14, peak_int8 = 2.0e14, mxu_tile = 256, mxu_efficiency = 1.5, hbm_capacity = 3.2e10, hbm_bandwidth = 1.5e12, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 1.0e11, hop_latency = 2.5e-6>>} {
}

// -----

// expected-error @+1 {{peak_bf16 must be at least 1 FLOP/s, got 0.5}}
module attributes {loom.target = #loom.target<"lab-tpu", shape = [2, 4], wrap_axes = [], chip = #loom.chip<peak_bf16 = 0.5, peak_int8 = 2.0e14, mxu_tile = 256, mxu_efficiency = 0.75, hbm_capacity = 3.2e10, hbm_bandwidth = 1.5e12, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 1.0e11, hop_latency = 2.5e-6>>} {
}

// -----

// expected-error @+1 {{mxu_tile must be a whole number of elements in [1, 2^53], got 0}}
module attributes {loom.target = #loom.target<"lab-tpu", shape = [2, 4], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.0e14, peak_int8 = 2.0e14, mxu_tile = 0, mxu_efficiency = 0.75, hbm_capacity = 3.2e10, hbm_bandwidth = 1.5e12, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 1.0e11, hop_latency = 2.5e-6>>} {
}

// -----

// expected-error @+1 {{hbm_capacity must be a whole number of bytes in [1, 2^53], got 0.5}}
module attributes {loom.target = #loom.target<"lab-tpu", shape = [2, 4], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.0e14, peak_int8 = 2.0e14, mxu_tile = 256, mxu_efficiency = 0.75, hbm_capacity = 0.5, hbm_bandwidth = 1.5e12, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 1.0e11, hop_latency = 2.5e-6>>} {
}

// -----

// expected-error @+1 {{hop_latency must be in (0, 1] s, got -1e-06}}
module attributes {loom.target = #loom.target<"lab-tpu", shape = [2, 4], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.0e14, peak_int8 = 2.0e14, mxu_tile = 256, mxu_efficiency = 0.75, hbm_capacity = 3.2e10, hbm_bandwidth = 1.5e12, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 1.0e11, hop_latency = -1.0e-6>>} {
}

// -----

// expected-error @+1 {{'loom.target' belongs on the module}}
func.func @f() attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  return
}

// -----

// Several slices joined by the data-center network: the count and the
// bundled target's DCN figures (its host section) in #loom.dcn; the shape
// is one slice's.
// CHECK: #loom.target<"tpu-v5e", topology = "4xv5e-256", shape = [16, 16], wrap_axes = [0, 1],
// CHECK-SAME: dcn = #loom.dcn<slices = 4, chips_per_host = 8, bandwidth = 1.25e+10, latency = 0.0001>>
module attributes {loom.target = #loom.target<"tpu-v5e", topology = "4xv5e-256">} {
}

// -----

// A target written in full spans slices with a #loom.dcn of its own.
// CHECK: #loom.target<"lab-tpu", topology = "2x4", shape = [2, 4],
// CHECK-SAME: dcn = #loom.dcn<slices = 3, chips_per_host = 4, bandwidth = 2.5e+10, latency = 5.0e-05>>
module attributes {loom.target = #loom.target<"lab-tpu", shape = [2, 4], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.0e14, peak_int8 = 2.0e14, mxu_tile = 256, mxu_efficiency = 0.75, hbm_capacity = 3.2e10, hbm_bandwidth = 1.5e12, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 1.0e11, hop_latency = 2.5e-6>, dcn = #loom.dcn<slices = 3, chips_per_host = 4, bandwidth = 2.5e10, latency = 5.0e-5>>} {
}

// -----

// expected-error @+1 {{a #loom.dcn joins 2 or more slices, got 1}}
module attributes {loom.target = #loom.target<"lab-tpu", shape = [2, 4], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.0e14, peak_int8 = 2.0e14, mxu_tile = 256, mxu_efficiency = 0.75, hbm_capacity = 3.2e10, hbm_bandwidth = 1.5e12, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 1.0e11, hop_latency = 2.5e-6>, dcn = #loom.dcn<slices = 1, chips_per_host = 4, bandwidth = 2.5e10, latency = 5.0e-5>>} {
}

// -----

// expected-error @+1 {{3 chips per host neither divide a slice's 8 chips nor are a multiple of them}}
module attributes {loom.target = #loom.target<"lab-tpu", shape = [2, 4], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.0e14, peak_int8 = 2.0e14, mxu_tile = 256, mxu_efficiency = 0.75, hbm_capacity = 3.2e10, hbm_bandwidth = 1.5e12, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 1.0e11, hop_latency = 2.5e-6>, dcn = #loom.dcn<slices = 2, chips_per_host = 3, bandwidth = 2.5e10, latency = 5.0e-5>>} {
}

// -----

// expected-error @+1 {{latency must be in (0, 1] s, got 30}}
module attributes {loom.target = #loom.target<"lab-tpu", shape = [2, 4], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.0e14, peak_int8 = 2.0e14, mxu_tile = 256, mxu_efficiency = 0.75, hbm_capacity = 3.2e10, hbm_bandwidth = 1.5e12, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 1.0e11, hop_latency = 2.5e-6>, dcn = #loom.dcn<slices = 2, chips_per_host = 4, bandwidth = 2.5e10, latency = 30.0>>} {
}

// -----

// expected-error @+1 {{target 'tpu-v5e': topology '0xv5e-16': the slice count '0' must be an integer of at least 1}}
module attributes {loom.target = #loom.target<"tpu-v5e", topology = "0xv5e-16">} {
}
