// End to end: a bundled model, imported for a target (or given one by
// loom-set-target), through loom-estimate, against a hand count of a real
// LLaMA-65B layer. The pass's own arithmetic is tested on hand-written
// layers in test/Transforms/estimate.mlir.
// RUN: loom-import llama-65b --target v5e-4 | loom-opt --loom-estimate | FileCheck %s
// RUN: loom-import llama-65b | loom-opt --loom-set-target=topology=v5e-4 --loom-estimate | FileCheck %s
// RUN: loom-import llama-65b --target v5e-4 | loom-opt --loom-estimate=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// One LLaMA-65B layer (2048 tokens, bf16) on one TPU v5e chip, worked by
// hand from the target figures (calibration tpu-v5e-published version 1):
// compute at 197e12 x 0.9568 = 188.4896e12 FLOP/s, HBM at 819.2e9 x 0.9 =
// 737.28e9 B/s; each op takes the slower of the two plus its kernel_step
// (0.2672 us). Every matmul dimension is a multiple of 128, so nothing pads.
//   q, k, v, o  2*2048*8192*8192 = 2.749e11 FLOP -> 1458.319 us each (x4)
//   gate, up, down  2*2048*8192*22016 = 7.387e11 -> 3919.231 us each (x3)
//   attention   4*64*128*(2048*2049/2) = 6.875e10 -> 364.758 us
//   rms_norm    read+write 2*33.55 MB (+16 kB weight) -> 91.044 us (x2)
//   rope        2*33.55 MB -> 91.022 us (x2)
//   add         3*33.55 MB -> 136.533 us (x2)
//   swiglu      3*90.18 MB -> 366.933 us
//   15 kernel steps                         4.008 us
//   total                                  18963.87 us
// CHECK: loom.layer 0(%{{.*}}) {kind = "llama", loom.time_us = 18963.86
// CHECK: loom.layer 79(%{{.*}}) {kind = "llama", loom.time_us = 18963.86

// The matmuls and attention are (4*1458.319 + 3*3919.231 + 364.758) / 18963.87
// = 94.7% of the time.
// REMARK: remark: layer 0: 18963.9 us on v5e-4 (95% of it MXU-bound work)
