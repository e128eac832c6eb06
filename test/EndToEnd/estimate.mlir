// End to end: a bundled model, imported for a target (or given one by
// loom-set-target), through loom-estimate, against a hand count of a real
// LLaMA-65B layer. The pass's own arithmetic is tested on hand-written
// layers in test/Transforms/estimate.mlir.
// RUN: loom-import llama-65b --target v5e-4 | loom-opt --loom-estimate | FileCheck %s
// RUN: loom-import llama-65b | loom-opt --loom-set-target=topology=v5e-4 --loom-estimate | FileCheck %s
// RUN: loom-import llama-65b --target v5e-4 | loom-opt --loom-estimate=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// One LLaMA-65B layer (2048 tokens, bf16) on one TPU v5e chip, worked by
// hand from the target figures: compute at 197e12 x 0.8 = 157.6e12 FLOP/s,
// HBM at 819.2e9 x 0.9 = 737.28e9 B/s; each op takes the slower of the two.
// Every matmul dimension is a multiple of 128, so nothing pads.
//   q, k, v, o  2*2048*8192*8192 = 2.749e11 FLOP -> 1744.149 us each (x4)
//   gate, up, down  2*2048*8192*22016 = 7.387e11 -> 4687.401 us each (x3)
//   attention   4*64*128*(2048*2049/2) = 6.875e10 -> 436.250 us
//   rms_norm    read+write 2*33.55 MB (+16 kB weight) -> 91.044 us (x2)
//   rope        2*33.55 MB -> 91.022 us (x2)
//   add         3*33.55 MB -> 136.533 us (x2)
//   swiglu      3*90.18 MB -> 366.933 us
//   total                                  22479.18 us
// CHECK: module attributes {{{.*}}loom.target = #loom.target<"tpu-v5e", topology = "v5e-4", shape = [2, 2], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.97e+14, peak_int8 = 3.94e+14, mxu_tile = 128, mxu_efficiency = 0.8, hbm_capacity = 1.6e+10, hbm_bandwidth = 8.192e+11, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 4.5e+10, hop_latency = 1.0e-06>>}
// CHECK: loom.layer 0(%{{.*}}) {kind = "llama", loom.time_us = 22479.18
// CHECK: loom.layer 79(%{{.*}}) {kind = "llama", loom.time_us = 22479.18

// The matmuls and attention are (4*1744.149 + 3*4687.401 + 436.250) / 22479.18
// = 95.5% of the time.
// REMARK: remark: layer 0: 22479.2 us on v5e-4 (96% of it MXU-bound work)
