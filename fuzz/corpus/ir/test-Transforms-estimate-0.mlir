// loom-estimate on hand-written layers: each layer's loom.time_us worked
// by hand from the target's figures.
// RUN: loom-opt %s -split-input-file -verify-diagnostics --loom-estimate=remarks=true | FileCheck %s

// The roofline (CostModel.h), with the v5e figures the target carries
// (targets/tpu-v5e.json, calibration tpu-v5e-published version 1): compute
// at peak_bf16 x mxu_efficiency = 197e12 x 0.9568 = 188.4896e12 FLOP/s on
// FLOPs padded to the MXU's 128 x 128 tile, vector work at the VPU's
// 197e12 / 32 = 6.15625e12 op/s, HBM at hbm_bandwidth x hbm_efficiency =
// 819.2e9 x 0.9 = 737.28e9 B/s; each kernel takes the slowest of the three
// plus its kernel_step, 0.2672 us, per grid step, and a layer the sum of
// its kernels. The add joins the o projection's kernel (XLA's output
// fusion, getFusedOperand).
//
// One chip, 256 tokens of hidden 256 (a 1 x 256 x 256 bf16 tensor is
// 131072 B):
//   rms_norm   4 x 65536 vector ops (0.042582 us);
//              131072 in + 512 scale + 131072 out = 262656 B  0.356250 us
//   linear q   2 x 256 x 256 x 256 = 33554432 FLOPs (0.178017 us);
//              131072 in + 131072 weights + 131072 out = 393216 B
//                                                             0.533333 us
//   attention  as the TPU's flash kernels run it (flashAttentionWork):
//              causal, 8 heads of 32 (padded to 128), the 256 tokens one
//              block of queries and one of keys a head: 8 grid steps.
//              MXU: 256 x 257 / 2 = 32896 pairs x 4 x 8 x 128 = 134742016
//              FLOPs (0.714851 us); VPU: 8 blocks x (256 x 256 x 11 + 256
//              x 128 x 9 + 256 x 128 x 3) = 8912896 ops (1.447820 us);
//              HBM: q and out 262144 B plus a K and a V block of 256 x 128
//              x 2 B a head, 1048576 B: 1310720 B            1.777778 us
//   linear o   as q, with the add fused: 393216 + 393216 - 2 x 131072
//   + add      (o's result is neither written nor read back) = 524288 B
//                                                             0.711111 us
//   kernel steps  1 + 1 + 8 + 1 = 11 x 0.2672                 2.939200 us
//   total                                                     6.317672 us
// Of it, the padded FLOPs (202178560) take 1.072623 us at the MXU's rate:
// 17%. Unpadded the layer has 101122048 FLOPs; it moves 1966592 B.
// CHECK-LABEL: func.func @one_chip
// CHECK: loom.layer 0(%{{.*}}) {loom.time_us = 6.317672{{[0-9]*}} : f64}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [1, 1]>} {
  func.func @one_chip(%x: tensor<1x256x256xbf16>) -> tensor<1x256x256xbf16> {
    // expected-remark @+1 {{layer 0: 6.3 us on v5e-1 (17% of it MXU-bound work); 101122048 FLOPs, 1966592 bytes moved}}
    %y = loom.layer 0 (%x) : (tensor<1x256x256xbf16>) -> tensor<1x256x256xbf16> {
    ^bb0(%in: tensor<1x256x256xbf16>):
      %n = loom.rms_norm %in : tensor<1x256x256xbf16>
      %q = loom.linear q %n : tensor<1x256x256xbf16> -> tensor<1x256x256xbf16>
      %a = loom.attention %q, %q, %q {heads = 8, kv_heads = 8, head_dim = 32, causal} : tensor<1x256x256xbf16>, tensor<1x256x256xbf16> -> tensor<1x256x256xbf16>
      %o = loom.linear o %a : tensor<1x256x256xbf16> -> tensor<1x256x256xbf16>
      %r = loom.add %in, %o : tensor<1x256x256xbf16>, tensor<1x256x256xbf16>
      loom.yield %r : tensor<1x256x256xbf16>
    }
    return %y : tensor<1x256x256xbf16>
  }
}

