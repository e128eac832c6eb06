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

// -----

// A sharded module's collectives run on its tensor-parallel group, priced
// with the ICI figures (link_bandwidth 45e9 B/s, hop_latency 1 us) and the
// calibration (collective_sync 2.365 us once per collective; a line's links
// at 0.829 of their bandwidth). tp = 2 on v5e-4 (2 x 2, no wraparound): a
// line of 2 chips. An all-gather is sync + (n - 1) hops + (n - 1) / n x
// bytes / (efficiency x bandwidth), an all-reduce two of them with one sync:
//   2 x (2.365 + 1 + 1/2 x 131072 B / (0.829 x 45e9 B/s)) - 2.365
//   = 2 x 5.121762 - 2.365 = 7.878524 us
// CHECK-LABEL: func.func @line_of_two
// CHECK: loom.layer 0(%{{.*}}) {loom.time_us = 7.8785236{{[0-9]*}} : f64}
module attributes {loom.parallel = #loom.parallel<tp = 2>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @line_of_two(%x: tensor<1x256x256xbf16>) -> tensor<1x256x256xbf16> {
    // expected-remark @+1 {{layer 0: 7.9 us on v5e-4 (0% of it MXU-bound work); 0 FLOPs, 262144 bytes moved}}
    %y = loom.layer 0 (%x) : (tensor<1x256x256xbf16>) -> tensor<1x256x256xbf16> {
    ^bb0(%in: tensor<1x256x256xbf16>):
      %r = loom.all_reduce %in {group = "tp", group_size = 2} : tensor<1x256x256xbf16> -> tensor<1x256x256xbf16>
      loom.yield %r : tensor<1x256x256xbf16>
    }
    return %y : tensor<1x256x256xbf16>
  }
}

// -----

// tp = 4 fills v5e-4's 2 x 2 block, a ring: each chip takes in data over
// two links at the ring's 0.9556, and an all-gather has 3 steps:
//   2 x (2.365 + 3 + 3/4 x 131072 B / (2 x 0.9556 x 45e9 B/s)) - 2.365
//   = 2 x 6.508017 - 2.365 = 10.651033 us
// CHECK-LABEL: func.func @ring_of_four
// CHECK: loom.layer 0(%{{.*}}) {loom.time_us = 10.651033{{[0-9]*}} : f64}
module attributes {loom.parallel = #loom.parallel<tp = 4>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @ring_of_four(%x: tensor<1x256x256xbf16>) -> tensor<1x256x256xbf16> {
    // expected-remark @+1 {{layer 0: 10.7 us on v5e-4}}
    %y = loom.layer 0 (%x) : (tensor<1x256x256xbf16>) -> tensor<1x256x256xbf16> {
    ^bb0(%in: tensor<1x256x256xbf16>):
      %r = loom.all_reduce %in {group = "tp", group_size = 4} : tensor<1x256x256xbf16> -> tensor<1x256x256xbf16>
      loom.yield %r : tensor<1x256x256xbf16>
    }
    return %y : tensor<1x256x256xbf16>
  }
}

// -----

// expected-error @+1 {{loom-estimate needs a target: run loom-set-target first (e.g. --loom-set-target=topology=v5e-16), or import with --target}}
module {
}
