

// Layers over per-sample vectors (no sequence dimension) are one unit that
// cannot be cut.
// CHECK-LABEL: func.func @per_sample
// CHECK-SAME: loom.pipeline = #loom.pipeline<stages = 2, slices = [1]>
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2], calibration = "nominal">} {
  func.func @per_sample(%x: tensor<4x64xbf16>) -> tensor<4x64xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [1]>} {
    %a = loom.layer 0 (%x) {stage = 0} : (tensor<4x64xbf16>) -> tensor<4x64xbf16> {
    ^bb0(%in: tensor<4x64xbf16>):
      %h = loom.linear up %in : tensor<4x64xbf16> -> tensor<4x64xbf16>
      loom.yield %h : tensor<4x64xbf16>
    }
    %b = loom.layer 1 (%a) {stage = 1} : (tensor<4x64xbf16>) -> tensor<4x64xbf16> {
    ^bb0(%in: tensor<4x64xbf16>):
      %h = loom.linear down %in : tensor<4x64xbf16> -> tensor<4x64xbf16>
      loom.yield %h : tensor<4x64xbf16>
    }
    return %b : tensor<4x64xbf16>
  }
}

// A causal model (Inputs/causal-2-stages.mlir): per stage, two 128 x 128
// linears and a causal attention of 4 heads of 32, run as the TPU's flash
// kernels do (flashAttentionWork: blocks of up to 512 queries and 512 keys,
// head_dim padded to 128). A slice of l tokens after c others:
//   linear     (32768 + 512 l) B                       HBM-bound
//   attention  q and out, 512 l B, plus a K and a V block of (c + l) keys
//              x 128 x 2 B per head, once per query block: HBM-bound here
//              (the MXU's 2048 FLOPs a pair and the VPU's work take less)
// (HBM at 819.2e9 x 0.9 B/s; the nominal calibration has no kernel step).
// Unsliced, the 256 tokens are one query block that reads each key once:
// t = 2 x 0.222 + 0.889 = 1.333 us a stage, T = 2 x 1.333 = 2.667 us, the
// best. Cut, the second slice's block reads the first slice's keys again:
// 128 + 128 takes 2.844 us, 144 + 112 2.856 us.
// CAUSAL: remark: TeraPipe: 1 slices [256] on 2 stages, predicted 0.003 ms (sum 0.001 ms + 1 x max 0.001 ms); best equal slicing: 1 x 256 tokens, 0.003 ms; 0.0% better
// CAUSAL: loom.pipeline = #loom.pipeline<stages = 2, slices = [256]>

// A DiT (Inputs/dit-2-stages.mlir), 64 tokens, 4 steps, 2 stages. A patch
// of l tokens takes on each stage two 256 x 256 linears, (131072 + 1024 l)
// B, and a full attention over all 64 keys, (65536 + 1024 l) B (the K/V
// read whole): w(l) = (327680 + 3072 l) / 737.28e9, HBM-bound; 0.711,
// 0.578, 0.511 and 0.478 us for 64, 32, 16 and 8 tokens. Each handover
// costs a hop, 1 us, plus 32768 l / 64 B over a 45e9 B/s link into stage
// 1. Played through 4 steps (PipelinePrediction, PipeFusion's schedule):
//   patches        1        2        4        8
//   warm-up 1   15.602   14.234   14.884   19.426 us
//   warm-up 0   15.602   13.656   13.350   16.858 us
// so 2 patches with one synchronous step, 4 with none; M S / (M S + K - 1)
// = 8 / 9 and 16 / 17.
// DIT: remark: PipeFusion: 2 patches of 32 tokens on 2 stages over 4 steps (1 warm-up), predicted 0.014 ms; pipeline efficiency M*S/(M*S+K-1) = 88.9%; without patches (synchronous steps) 0.016 ms
// DIT: loom.pipeline = #loom.pipeline<stages = 2, slices = [32, 32], patches, steps = 4, warmup = 1>
// DIT0: remark: PipeFusion: 4 patches of 16 tokens on 2 stages over 4 steps (0 warm-up), predicted 0.013 ms; pipeline efficiency M*S/(M*S+K-1) = 94.1%; without patches (synchronous steps) 0.016 ms
// DIT0: loom.pipeline = #loom.pipeline<stages = 2, slices = [16, 16, 16, 16], patches, steps = 4>
