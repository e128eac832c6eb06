// End to end: a bundled model, imported for a target (or given one by
// loom-set-target), through loom-estimate, against a hand count of a real
// LLaMA-65B layer. The pass's own arithmetic is tested on hand-written
// layers in test/Transforms/estimate.mlir.
// RUN: loom-import llama-65b --target v5e-4 | loom-opt --loom-estimate | FileCheck %s
// RUN: loom-import llama-65b | loom-opt --loom-set-target=topology=v5e-4 --loom-estimate | FileCheck %s
// RUN: loom-import llama-65b --target v5e-4 | loom-opt --loom-estimate=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// One LLaMA-65B layer (2048 tokens, bf16) on one TPU v5e chip, worked by
// hand from the target figures (calibration tpu-v5e-published version 1):
// compute at 197e12 x 0.9568 = 188.4896e12 FLOP/s, vector work at 197e12 /
// 32 = 6.15625e12 op/s, HBM at 819.2e9 x 0.9 = 737.28e9 B/s; each kernel
// takes the slowest of the three plus its kernel_step (0.2672 us) per grid
// step. Every matmul dimension is a multiple of 128, so nothing pads.
// Elementwise ops join their producers' kernels (getFusedOperand): each
// RoPE its projection's, the first add the o projection's, SwiGLU up's,
// the second add down's; the matmuls stay MXU-bound with them.
//   q+rope, k+rope, v, o+add  2*2048*8192*8192 = 2.749e11 FLOP
//                                       -> 1458.319 us each (x4)
//   gate, up+swiglu, down+add  2*2048*8192*22016 = 7.387e11
//                                       -> 3919.231 us each (x3)
//   attention   the flash kernel in 512 x 512 blocks (flashAttentionWork):
//               64 heads x 4 x 4 = 1024 grid steps, 640 of them visiting
//               keys; VPU-bound: 640 x (512*512*11 + 512*128*9 +
//               512*128*3) = 2.349e9 ops -> 381.533 us (the MXU's
//               4*64*128*(2048*2049/2) = 6.875e10 FLOP take 364.758 us,
//               q, out and the K/V blocks 234.9 MB 318.578 us)
//   rms_norm    read+write 2*33.55 MB (+16 kB weight) -> 91.044 us (x2)
//   9 + 1024 kernel steps                 276.018 us
//   total                                18430.61 us
// CHECK: loom.layer 0(%{{.*}}) {kind = "llama", loom.time_us = 18430.60
// CHECK: loom.layer 79(%{{.*}}) {kind = "llama", loom.time_us = 18430.60

// The matmuls and attention's FLOPs are (4*1458.319 + 3*3919.231 +
// 364.758) / 18430.61 = 97.4% of the time.
// REMARK: remark: layer 0: 18430.6 us on v5e-4 (97% of it MXU-bound work)
