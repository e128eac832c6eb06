// A 2-layer LLaMA-style model (hidden 256, 4 heads of 64, MLP 512, vocab
// 1024, 64 tokens) with tp=2, 2 stages and 2 slices of 32 tokens on v5e-4:
// the whole task list of all four chips.
//
// By hand, per chip (tp rank r of stage s):
// - stage 0 (chips 0, 1): weights of the embedding (1024/2 x 256 x 2 B =
//   262144) and layer 0 (656384), layer 0's KV cache of 64 tokens
//   (2 x 64 x 128 x 2 B = 32768); per slice: embedding (a gather: the
//   slice's 32 ids, 128 B, its 32 rows read and written, 2 x 16384 B; the
//   table is not read again per slice) + all-reduce, then
//   layer 0's 16 ops as 12 kernels and 2 all-reduces (16384 B = 32 x 256
//   x 2), a send of the slice's 32 x 256 x 2 = 16384 B to the same rank of
//   stage 1.
// - Fusion (getFusedOperand): each RoPE runs in its projection's kernel,
//   the second RMSNorm in the add before it, SwiGLU in up's; their FLOPs
//   become vector_ops. q+rope moves what q alone does (90112 B: the rope's
//   8192 B in and out are the q result it no longer writes and reads);
//   add+rms_norm 49152 + 33280 - 16384 (the add's result is read back by
//   the residual add, so it is still written) = 66048 B; up+swiglu
//   163840 + 49152 - 2 x 16384 = 180224 B.
// - stage 1 (chips 2, 3): a receive, layer 1, the final norm and the LM
//   head's 512 vocabulary columns.
// - The second slice's attention visits 32 x 32 + 32 x 33 / 2 = 1552 query/
//   key pairs instead of 528: 4 x 2 heads x 128 (head_dim 64 padded to the
//   MXU's 128) x 1552 = 1589248 FLOPs.
// - Attention as the flash kernels run it (flashAttentionWork): blocks of
//   32 queries (the slice) by up to 512 keys, 2 heads. Slice 0: one block a
//   head, steps = 2; K and V blocks of 32 x 128 (head_dim padded) x 2 B
//   each per head = 32768 B, plus q and out 2 x 8192 = 49152 B; vector ops
//   per block 32 x 32 x (6 + 5 causal) + 32 x 128 x 9 + 32 x 128 x 3 =
//   60416, x 2 = 120832. Slice 1 sees 64 keys, one block of 64: the same
//   steps, K/V 2 x 2 x 64 x 128 x 2 = 65536 B (81920 B in all), vector ops
//   (32 x 64 x 11 + 32 x 128 x 12) x 2 = 143360.
//
// The input below is the plan as loom-shard-heads=tp=2,
// loom-partition-layers=stages=2 and loom-split-tokens=slices=2 leave it
// (Inputs/tiny-llama.json imported with --seq 64), written out so that only
// the lowering is under test.
// RUN: loom-opt %s --convert-loom-to-sched | FileCheck %s

// CHECK: sched.program attributes {target = #loom.target<"tpu-v5e", topology = "v5e-4", shape = [2, 2], {{.*}}>} {
// CHECK-NEXT: sched.chip 0 {
// CHECK-NEXT: %[[C0_0:[0-9]+]] = sched.alloc weights 262144 "prologue.weights"
// CHECK-NEXT: %[[C0_1:[0-9]+]] = sched.alloc weights 656384 "layer0.weights"
// CHECK-NEXT: %[[C0_2:[0-9]+]] = sched.alloc kv_cache 32768 "layer0.kv"
// CHECK-NEXT: %[[C0_3:[0-9]+]] = sched.alloc activations 229376 "slice0.activations"
// CHECK-NEXT: %[[C0_4:[0-9]+]] = sched.compute "prologue.embed" deps(%[[C0_3]]) {bytes = 32896 : i64, flops = 0 : i64, layer = -1 : i64, op = "loom.embed", slice = 0 : i64}
// CHECK-NEXT: %[[C0_5:[0-9]+]] = sched.collective_start all_reduce deps(%[[C0_4]]) {bytes = 16384 : i64, group = array<i64: 0, 1>, tag = 0 : i64}
// CHECK-NEXT: %[[C0_6:[0-9]+]] = sched.collective_done %[[C0_5]]
// CHECK-NEXT: %[[C0_7:[0-9]+]] = sched.compute "layer0.rms_norm" deps(%[[C0_6]]) {bytes = 33280 : i64, flops = 0 : i64, layer = 0 : i64, op = "loom.rms_norm", slice = 0 : i64, vector_ops = 32768 : i64}
// CHECK-NEXT: %[[C0_8:[0-9]+]] = sched.compute "layer0.linear.q+rope" deps(%[[C0_7]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 0 : i64, op = "loom.linear", slice = 0 : i64, vector_ops = 12288 : i64}
// CHECK-NEXT: %[[C0_9:[0-9]+]] = sched.compute "layer0.linear.k+rope" deps(%[[C0_8]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 0 : i64, op = "loom.linear", slice = 0 : i64, vector_ops = 12288 : i64}
// CHECK-NEXT: %[[C0_10:[0-9]+]] = sched.compute "layer0.linear.v" deps(%[[C0_9]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 0 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[C0_11:[0-9]+]] = sched.compute "layer0.attention" deps(%[[C0_10]]) {bytes = 49152 : i64, flops = 540672 : i64, layer = 0 : i64, op = "loom.attention", slice = 0 : i64, steps = 2 : i64, vector_ops = 120832 : i64}
// CHECK-NEXT: %[[C0_12:[0-9]+]] = sched.compute "layer0.linear.o" deps(%[[C0_11]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 0 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[C0_13:[0-9]+]] = sched.collective_start all_reduce deps(%[[C0_12]]) {bytes = 16384 : i64, group = array<i64: 0, 1>, tag = 1 : i64}
// CHECK-NEXT: %[[C0_14:[0-9]+]] = sched.collective_done %[[C0_13]]
// CHECK-NEXT: %[[C0_15:[0-9]+]] = sched.compute "layer0.add+rms_norm" deps(%[[C0_14]]) {bytes = 66048 : i64, flops = 0 : i64, layer = 0 : i64, op = "loom.add", slice = 0 : i64, vector_ops = 40960 : i64}
// CHECK-NEXT: %[[C0_16:[0-9]+]] = sched.compute "layer0.linear.gate" deps(%[[C0_15]]) {bytes = 163840 : i64, flops = 4194304 : i64, layer = 0 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[C0_17:[0-9]+]] = sched.compute "layer0.linear.up+swiglu" deps(%[[C0_16]]) {bytes = 180224 : i64, flops = 4194304 : i64, layer = 0 : i64, op = "loom.linear", slice = 0 : i64, vector_ops = 40960 : i64}
// CHECK-NEXT: %[[C0_18:[0-9]+]] = sched.compute "layer0.linear.down" deps(%[[C0_17]]) {bytes = 163840 : i64, flops = 4194304 : i64, layer = 0 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[C0_19:[0-9]+]] = sched.collective_start all_reduce deps(%[[C0_18]]) {bytes = 16384 : i64, group = array<i64: 0, 1>, tag = 2 : i64}
// CHECK-NEXT: %[[C0_20:[0-9]+]] = sched.collective_done %[[C0_19]]
// CHECK-NEXT: %[[C0_21:[0-9]+]] = sched.compute "layer0.add" deps(%[[C0_20]]) {bytes = 49152 : i64, flops = 0 : i64, layer = 0 : i64, op = "loom.add", slice = 0 : i64, vector_ops = 8192 : i64}
// CHECK-NEXT: %[[C0_22:[0-9]+]] = sched.send to 2 deps(%[[C0_21]]) {bytes = 16384 : i64, tag = 3 : i64}
// CHECK-NEXT: %[[C0_23:[0-9]+]] = sched.free %[[C0_3]] deps(%[[C0_21]])
// CHECK-NEXT: %[[C0_24:[0-9]+]] = sched.alloc activations 229376 "slice1.activations" deps(%[[C0_23]])
// CHECK-NEXT: %[[C0_25:[0-9]+]] = sched.compute "prologue.embed" deps(%[[C0_24]]) {bytes = 32896 : i64, flops = 0 : i64, layer = -1 : i64, op = "loom.embed", slice = 1 : i64}
// CHECK-NEXT: %[[C0_26:[0-9]+]] = sched.collective_start all_reduce deps(%[[C0_25]]) {bytes = 16384 : i64, group = array<i64: 0, 1>, tag = 7 : i64}
// CHECK-NEXT: %[[C0_27:[0-9]+]] = sched.collective_done %[[C0_26]]
// CHECK-NEXT: %[[C0_28:[0-9]+]] = sched.compute "layer0.rms_norm" deps(%[[C0_27]]) {bytes = 33280 : i64, flops = 0 : i64, layer = 0 : i64, op = "loom.rms_norm", slice = 1 : i64, vector_ops = 32768 : i64}
// CHECK-NEXT: %[[C0_29:[0-9]+]] = sched.compute "layer0.linear.q+rope" deps(%[[C0_28]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 0 : i64, op = "loom.linear", slice = 1 : i64, vector_ops = 12288 : i64}
// CHECK-NEXT: %[[C0_30:[0-9]+]] = sched.compute "layer0.linear.k+rope" deps(%[[C0_29]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 0 : i64, op = "loom.linear", slice = 1 : i64, vector_ops = 12288 : i64}
// CHECK-NEXT: %[[C0_31:[0-9]+]] = sched.compute "layer0.linear.v" deps(%[[C0_30]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 0 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[C0_32:[0-9]+]] = sched.compute "layer0.attention" deps(%[[C0_31]]) {bytes = 81920 : i64, flops = 1589248 : i64, layer = 0 : i64, op = "loom.attention", slice = 1 : i64, steps = 2 : i64, vector_ops = 143360 : i64}
// CHECK-NEXT: %[[C0_33:[0-9]+]] = sched.compute "layer0.linear.o" deps(%[[C0_32]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 0 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[C0_34:[0-9]+]] = sched.collective_start all_reduce deps(%[[C0_33]]) {bytes = 16384 : i64, group = array<i64: 0, 1>, tag = 8 : i64}
// CHECK-NEXT: %[[C0_35:[0-9]+]] = sched.collective_done %[[C0_34]]
// CHECK-NEXT: %[[C0_36:[0-9]+]] = sched.compute "layer0.add+rms_norm" deps(%[[C0_35]]) {bytes = 66048 : i64, flops = 0 : i64, layer = 0 : i64, op = "loom.add", slice = 1 : i64, vector_ops = 40960 : i64}
// CHECK-NEXT: %[[C0_37:[0-9]+]] = sched.compute "layer0.linear.gate" deps(%[[C0_36]]) {bytes = 163840 : i64, flops = 4194304 : i64, layer = 0 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[C0_38:[0-9]+]] = sched.compute "layer0.linear.up+swiglu" deps(%[[C0_37]]) {bytes = 180224 : i64, flops = 4194304 : i64, layer = 0 : i64, op = "loom.linear", slice = 1 : i64, vector_ops = 40960 : i64}
// CHECK-NEXT: %[[C0_39:[0-9]+]] = sched.compute "layer0.linear.down" deps(%[[C0_38]]) {bytes = 163840 : i64, flops = 4194304 : i64, layer = 0 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[C0_40:[0-9]+]] = sched.collective_start all_reduce deps(%[[C0_39]]) {bytes = 16384 : i64, group = array<i64: 0, 1>, tag = 9 : i64}
// CHECK-NEXT: %[[C0_41:[0-9]+]] = sched.collective_done %[[C0_40]]
// CHECK-NEXT: %[[C0_42:[0-9]+]] = sched.compute "layer0.add" deps(%[[C0_41]]) {bytes = 49152 : i64, flops = 0 : i64, layer = 0 : i64, op = "loom.add", slice = 1 : i64, vector_ops = 8192 : i64}
// CHECK-NEXT: %[[C0_43:[0-9]+]] = sched.send to 2 deps(%[[C0_42]]) {bytes = 16384 : i64, tag = 10 : i64}
// CHECK-NEXT: %[[C0_44:[0-9]+]] = sched.free %[[C0_24]] deps(%[[C0_42]])
// CHECK-NEXT: }
// CHECK-NEXT: sched.chip 1 {
// CHECK-NEXT: %[[C1_0:[0-9]+]] = sched.alloc weights 262144 "prologue.weights"
// CHECK-NEXT: %[[C1_1:[0-9]+]] = sched.alloc weights 656384 "layer0.weights"
// CHECK-NEXT: %[[C1_2:[0-9]+]] = sched.alloc kv_cache 32768 "layer0.kv"
// CHECK-NEXT: %[[C1_3:[0-9]+]] = sched.alloc activations 229376 "slice0.activations"
// CHECK-NEXT: %[[C1_4:[0-9]+]] = sched.compute "prologue.embed" deps(%[[C1_3]]) {bytes = 32896 : i64, flops = 0 : i64, layer = -1 : i64, op = "loom.embed", slice = 0 : i64}
// CHECK-NEXT: %[[C1_5:[0-9]+]] = sched.collective_start all_reduce deps(%[[C1_4]]) {bytes = 16384 : i64, group = array<i64: 0, 1>, tag = 0 : i64}
// CHECK-NEXT: %[[C1_6:[0-9]+]] = sched.collective_done %[[C1_5]]
// CHECK-NEXT: %[[C1_7:[0-9]+]] = sched.compute "layer0.rms_norm" deps(%[[C1_6]]) {bytes = 33280 : i64, flops = 0 : i64, layer = 0 : i64, op = "loom.rms_norm", slice = 0 : i64, vector_ops = 32768 : i64}
// CHECK-NEXT: %[[C1_8:[0-9]+]] = sched.compute "layer0.linear.q+rope" deps(%[[C1_7]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 0 : i64, op = "loom.linear", slice = 0 : i64, vector_ops = 12288 : i64}
// CHECK-NEXT: %[[C1_9:[0-9]+]] = sched.compute "layer0.linear.k+rope" deps(%[[C1_8]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 0 : i64, op = "loom.linear", slice = 0 : i64, vector_ops = 12288 : i64}
// CHECK-NEXT: %[[C1_10:[0-9]+]] = sched.compute "layer0.linear.v" deps(%[[C1_9]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 0 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[C1_11:[0-9]+]] = sched.compute "layer0.attention" deps(%[[C1_10]]) {bytes = 49152 : i64, flops = 540672 : i64, layer = 0 : i64, op = "loom.attention", slice = 0 : i64, steps = 2 : i64, vector_ops = 120832 : i64}
// CHECK-NEXT: %[[C1_12:[0-9]+]] = sched.compute "layer0.linear.o" deps(%[[C1_11]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 0 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[C1_13:[0-9]+]] = sched.collective_start all_reduce deps(%[[C1_12]]) {bytes = 16384 : i64, group = array<i64: 0, 1>, tag = 1 : i64}
// CHECK-NEXT: %[[C1_14:[0-9]+]] = sched.collective_done %[[C1_13]]
// CHECK-NEXT: %[[C1_15:[0-9]+]] = sched.compute "layer0.add+rms_norm" deps(%[[C1_14]]) {bytes = 66048 : i64, flops = 0 : i64, layer = 0 : i64, op = "loom.add", slice = 0 : i64, vector_ops = 40960 : i64}
// CHECK-NEXT: %[[C1_16:[0-9]+]] = sched.compute "layer0.linear.gate" deps(%[[C1_15]]) {bytes = 163840 : i64, flops = 4194304 : i64, layer = 0 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[C1_17:[0-9]+]] = sched.compute "layer0.linear.up+swiglu" deps(%[[C1_16]]) {bytes = 180224 : i64, flops = 4194304 : i64, layer = 0 : i64, op = "loom.linear", slice = 0 : i64, vector_ops = 40960 : i64}
// CHECK-NEXT: %[[C1_18:[0-9]+]] = sched.compute "layer0.linear.down" deps(%[[C1_17]]) {bytes = 163840 : i64, flops = 4194304 : i64, layer = 0 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[C1_19:[0-9]+]] = sched.collective_start all_reduce deps(%[[C1_18]]) {bytes = 16384 : i64, group = array<i64: 0, 1>, tag = 2 : i64}
// CHECK-NEXT: %[[C1_20:[0-9]+]] = sched.collective_done %[[C1_19]]
// CHECK-NEXT: %[[C1_21:[0-9]+]] = sched.compute "layer0.add" deps(%[[C1_20]]) {bytes = 49152 : i64, flops = 0 : i64, layer = 0 : i64, op = "loom.add", slice = 0 : i64, vector_ops = 8192 : i64}
// CHECK-NEXT: %[[C1_22:[0-9]+]] = sched.send to 3 deps(%[[C1_21]]) {bytes = 16384 : i64, tag = 4 : i64}
// CHECK-NEXT: %[[C1_23:[0-9]+]] = sched.free %[[C1_3]] deps(%[[C1_21]])
// CHECK-NEXT: %[[C1_24:[0-9]+]] = sched.alloc activations 229376 "slice1.activations" deps(%[[C1_23]])
// CHECK-NEXT: %[[C1_25:[0-9]+]] = sched.compute "prologue.embed" deps(%[[C1_24]]) {bytes = 32896 : i64, flops = 0 : i64, layer = -1 : i64, op = "loom.embed", slice = 1 : i64}
// CHECK-NEXT: %[[C1_26:[0-9]+]] = sched.collective_start all_reduce deps(%[[C1_25]]) {bytes = 16384 : i64, group = array<i64: 0, 1>, tag = 7 : i64}
// CHECK-NEXT: %[[C1_27:[0-9]+]] = sched.collective_done %[[C1_26]]
// CHECK-NEXT: %[[C1_28:[0-9]+]] = sched.compute "layer0.rms_norm" deps(%[[C1_27]]) {bytes = 33280 : i64, flops = 0 : i64, layer = 0 : i64, op = "loom.rms_norm", slice = 1 : i64, vector_ops = 32768 : i64}
// CHECK-NEXT: %[[C1_29:[0-9]+]] = sched.compute "layer0.linear.q+rope" deps(%[[C1_28]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 0 : i64, op = "loom.linear", slice = 1 : i64, vector_ops = 12288 : i64}
// CHECK-NEXT: %[[C1_30:[0-9]+]] = sched.compute "layer0.linear.k+rope" deps(%[[C1_29]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 0 : i64, op = "loom.linear", slice = 1 : i64, vector_ops = 12288 : i64}
// CHECK-NEXT: %[[C1_31:[0-9]+]] = sched.compute "layer0.linear.v" deps(%[[C1_30]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 0 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[C1_32:[0-9]+]] = sched.compute "layer0.attention" deps(%[[C1_31]]) {bytes = 81920 : i64, flops = 1589248 : i64, layer = 0 : i64, op = "loom.attention", slice = 1 : i64, steps = 2 : i64, vector_ops = 143360 : i64}
// CHECK-NEXT: %[[C1_33:[0-9]+]] = sched.compute "layer0.linear.o" deps(%[[C1_32]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 0 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[C1_34:[0-9]+]] = sched.collective_start all_reduce deps(%[[C1_33]]) {bytes = 16384 : i64, group = array<i64: 0, 1>, tag = 8 : i64}
// CHECK-NEXT: %[[C1_35:[0-9]+]] = sched.collective_done %[[C1_34]]
// CHECK-NEXT: %[[C1_36:[0-9]+]] = sched.compute "layer0.add+rms_norm" deps(%[[C1_35]]) {bytes = 66048 : i64, flops = 0 : i64, layer = 0 : i64, op = "loom.add", slice = 1 : i64, vector_ops = 40960 : i64}
// CHECK-NEXT: %[[C1_37:[0-9]+]] = sched.compute "layer0.linear.gate" deps(%[[C1_36]]) {bytes = 163840 : i64, flops = 4194304 : i64, layer = 0 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[C1_38:[0-9]+]] = sched.compute "layer0.linear.up+swiglu" deps(%[[C1_37]]) {bytes = 180224 : i64, flops = 4194304 : i64, layer = 0 : i64, op = "loom.linear", slice = 1 : i64, vector_ops = 40960 : i64}
// CHECK-NEXT: %[[C1_39:[0-9]+]] = sched.compute "layer0.linear.down" deps(%[[C1_38]]) {bytes = 163840 : i64, flops = 4194304 : i64, layer = 0 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[C1_40:[0-9]+]] = sched.collective_start all_reduce deps(%[[C1_39]]) {bytes = 16384 : i64, group = array<i64: 0, 1>, tag = 9 : i64}
// CHECK-NEXT: %[[C1_41:[0-9]+]] = sched.collective_done %[[C1_40]]
// CHECK-NEXT: %[[C1_42:[0-9]+]] = sched.compute "layer0.add" deps(%[[C1_41]]) {bytes = 49152 : i64, flops = 0 : i64, layer = 0 : i64, op = "loom.add", slice = 1 : i64, vector_ops = 8192 : i64}
// CHECK-NEXT: %[[C1_43:[0-9]+]] = sched.send to 3 deps(%[[C1_42]]) {bytes = 16384 : i64, tag = 11 : i64}
// CHECK-NEXT: %[[C1_44:[0-9]+]] = sched.free %[[C1_24]] deps(%[[C1_42]])
// CHECK-NEXT: }
// CHECK-NEXT: sched.chip 2 {
// CHECK-NEXT: %[[C2_0:[0-9]+]] = sched.alloc weights 656384 "layer1.weights"
// CHECK-NEXT: %[[C2_1:[0-9]+]] = sched.alloc kv_cache 32768 "layer1.kv"
// CHECK-NEXT: %[[C2_2:[0-9]+]] = sched.alloc weights 262656 "epilogue.weights"
// CHECK-NEXT: %[[C2_3:[0-9]+]] = sched.recv from 0 {bytes = 16384 : i64, tag = 3 : i64}
// CHECK-NEXT: %[[C2_4:[0-9]+]] = sched.alloc activations 229376 "slice0.activations" deps(%[[C2_3]])
// CHECK-NEXT: %[[C2_5:[0-9]+]] = sched.compute "layer1.rms_norm" deps(%[[C2_4]]) {bytes = 33280 : i64, flops = 0 : i64, layer = 1 : i64, op = "loom.rms_norm", slice = 0 : i64, vector_ops = 32768 : i64}
// CHECK-NEXT: %[[C2_6:[0-9]+]] = sched.compute "layer1.linear.q+rope" deps(%[[C2_5]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 1 : i64, op = "loom.linear", slice = 0 : i64, vector_ops = 12288 : i64}
// CHECK-NEXT: %[[C2_7:[0-9]+]] = sched.compute "layer1.linear.k+rope" deps(%[[C2_6]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 1 : i64, op = "loom.linear", slice = 0 : i64, vector_ops = 12288 : i64}
// CHECK-NEXT: %[[C2_8:[0-9]+]] = sched.compute "layer1.linear.v" deps(%[[C2_7]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 1 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[C2_9:[0-9]+]] = sched.compute "layer1.attention" deps(%[[C2_8]]) {bytes = 49152 : i64, flops = 540672 : i64, layer = 1 : i64, op = "loom.attention", slice = 0 : i64, steps = 2 : i64, vector_ops = 120832 : i64}
// CHECK-NEXT: %[[C2_10:[0-9]+]] = sched.compute "layer1.linear.o" deps(%[[C2_9]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 1 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[C2_11:[0-9]+]] = sched.collective_start all_reduce deps(%[[C2_10]]) {bytes = 16384 : i64, group = array<i64: 2, 3>, tag = 5 : i64}
// CHECK-NEXT: %[[C2_12:[0-9]+]] = sched.collective_done %[[C2_11]]
// CHECK-NEXT: %[[C2_13:[0-9]+]] = sched.compute "layer1.add+rms_norm" deps(%[[C2_12]]) {bytes = 66048 : i64, flops = 0 : i64, layer = 1 : i64, op = "loom.add", slice = 0 : i64, vector_ops = 40960 : i64}
// CHECK-NEXT: %[[C2_14:[0-9]+]] = sched.compute "layer1.linear.gate" deps(%[[C2_13]]) {bytes = 163840 : i64, flops = 4194304 : i64, layer = 1 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[C2_15:[0-9]+]] = sched.compute "layer1.linear.up+swiglu" deps(%[[C2_14]]) {bytes = 180224 : i64, flops = 4194304 : i64, layer = 1 : i64, op = "loom.linear", slice = 0 : i64, vector_ops = 40960 : i64}
// CHECK-NEXT: %[[C2_16:[0-9]+]] = sched.compute "layer1.linear.down" deps(%[[C2_15]]) {bytes = 163840 : i64, flops = 4194304 : i64, layer = 1 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[C2_17:[0-9]+]] = sched.collective_start all_reduce deps(%[[C2_16]]) {bytes = 16384 : i64, group = array<i64: 2, 3>, tag = 6 : i64}
// CHECK-NEXT: %[[C2_18:[0-9]+]] = sched.collective_done %[[C2_17]]
// CHECK-NEXT: %[[C2_19:[0-9]+]] = sched.compute "layer1.add" deps(%[[C2_18]]) {bytes = 49152 : i64, flops = 0 : i64, layer = 1 : i64, op = "loom.add", slice = 0 : i64, vector_ops = 8192 : i64}
// CHECK-NEXT: %[[C2_20:[0-9]+]] = sched.compute "epilogue.rms_norm" deps(%[[C2_19]]) {bytes = 33280 : i64, flops = 0 : i64, layer = -1 : i64, op = "loom.rms_norm", slice = 0 : i64, vector_ops = 32768 : i64}
// CHECK-NEXT: %[[C2_21:[0-9]+]] = sched.compute "epilogue.linear.lm_head" deps(%[[C2_20]]) {bytes = 311296 : i64, flops = 8388608 : i64, layer = -1 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[C2_22:[0-9]+]] = sched.free %[[C2_4]] deps(%[[C2_21]])
// CHECK-NEXT: %[[C2_23:[0-9]+]] = sched.recv from 0 {bytes = 16384 : i64, tag = 10 : i64}
// CHECK-NEXT: %[[C2_24:[0-9]+]] = sched.alloc activations 229376 "slice1.activations" deps(%[[C2_23]], %[[C2_22]])
// CHECK-NEXT: %[[C2_25:[0-9]+]] = sched.compute "layer1.rms_norm" deps(%[[C2_24]]) {bytes = 33280 : i64, flops = 0 : i64, layer = 1 : i64, op = "loom.rms_norm", slice = 1 : i64, vector_ops = 32768 : i64}
// CHECK-NEXT: %[[C2_26:[0-9]+]] = sched.compute "layer1.linear.q+rope" deps(%[[C2_25]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 1 : i64, op = "loom.linear", slice = 1 : i64, vector_ops = 12288 : i64}
// CHECK-NEXT: %[[C2_27:[0-9]+]] = sched.compute "layer1.linear.k+rope" deps(%[[C2_26]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 1 : i64, op = "loom.linear", slice = 1 : i64, vector_ops = 12288 : i64}
// CHECK-NEXT: %[[C2_28:[0-9]+]] = sched.compute "layer1.linear.v" deps(%[[C2_27]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 1 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[C2_29:[0-9]+]] = sched.compute "layer1.attention" deps(%[[C2_28]]) {bytes = 81920 : i64, flops = 1589248 : i64, layer = 1 : i64, op = "loom.attention", slice = 1 : i64, steps = 2 : i64, vector_ops = 143360 : i64}
// CHECK-NEXT: %[[C2_30:[0-9]+]] = sched.compute "layer1.linear.o" deps(%[[C2_29]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 1 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[C2_31:[0-9]+]] = sched.collective_start all_reduce deps(%[[C2_30]]) {bytes = 16384 : i64, group = array<i64: 2, 3>, tag = 12 : i64}
// CHECK-NEXT: %[[C2_32:[0-9]+]] = sched.collective_done %[[C2_31]]
// CHECK-NEXT: %[[C2_33:[0-9]+]] = sched.compute "layer1.add+rms_norm" deps(%[[C2_32]]) {bytes = 66048 : i64, flops = 0 : i64, layer = 1 : i64, op = "loom.add", slice = 1 : i64, vector_ops = 40960 : i64}
// CHECK-NEXT: %[[C2_34:[0-9]+]] = sched.compute "layer1.linear.gate" deps(%[[C2_33]]) {bytes = 163840 : i64, flops = 4194304 : i64, layer = 1 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[C2_35:[0-9]+]] = sched.compute "layer1.linear.up+swiglu" deps(%[[C2_34]]) {bytes = 180224 : i64, flops = 4194304 : i64, layer = 1 : i64, op = "loom.linear", slice = 1 : i64, vector_ops = 40960 : i64}
// CHECK-NEXT: %[[C2_36:[0-9]+]] = sched.compute "layer1.linear.down" deps(%[[C2_35]]) {bytes = 163840 : i64, flops = 4194304 : i64, layer = 1 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[C2_37:[0-9]+]] = sched.collective_start all_reduce deps(%[[C2_36]]) {bytes = 16384 : i64, group = array<i64: 2, 3>, tag = 13 : i64}
// CHECK-NEXT: %[[C2_38:[0-9]+]] = sched.collective_done %[[C2_37]]
// CHECK-NEXT: %[[C2_39:[0-9]+]] = sched.compute "layer1.add" deps(%[[C2_38]]) {bytes = 49152 : i64, flops = 0 : i64, layer = 1 : i64, op = "loom.add", slice = 1 : i64, vector_ops = 8192 : i64}
// CHECK-NEXT: %[[C2_40:[0-9]+]] = sched.compute "epilogue.rms_norm" deps(%[[C2_39]]) {bytes = 33280 : i64, flops = 0 : i64, layer = -1 : i64, op = "loom.rms_norm", slice = 1 : i64, vector_ops = 32768 : i64}
// CHECK-NEXT: %[[C2_41:[0-9]+]] = sched.compute "epilogue.linear.lm_head" deps(%[[C2_40]]) {bytes = 311296 : i64, flops = 8388608 : i64, layer = -1 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[C2_42:[0-9]+]] = sched.free %[[C2_24]] deps(%[[C2_41]])
// CHECK-NEXT: }
// CHECK-NEXT: sched.chip 3 {
// CHECK-NEXT: %[[C3_0:[0-9]+]] = sched.alloc weights 656384 "layer1.weights"
// CHECK-NEXT: %[[C3_1:[0-9]+]] = sched.alloc kv_cache 32768 "layer1.kv"
// CHECK-NEXT: %[[C3_2:[0-9]+]] = sched.alloc weights 262656 "epilogue.weights"
// CHECK-NEXT: %[[C3_3:[0-9]+]] = sched.recv from 1 {bytes = 16384 : i64, tag = 4 : i64}
// CHECK-NEXT: %[[C3_4:[0-9]+]] = sched.alloc activations 229376 "slice0.activations" deps(%[[C3_3]])
// CHECK-NEXT: %[[C3_5:[0-9]+]] = sched.compute "layer1.rms_norm" deps(%[[C3_4]]) {bytes = 33280 : i64, flops = 0 : i64, layer = 1 : i64, op = "loom.rms_norm", slice = 0 : i64, vector_ops = 32768 : i64}
// CHECK-NEXT: %[[C3_6:[0-9]+]] = sched.compute "layer1.linear.q+rope" deps(%[[C3_5]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 1 : i64, op = "loom.linear", slice = 0 : i64, vector_ops = 12288 : i64}
// CHECK-NEXT: %[[C3_7:[0-9]+]] = sched.compute "layer1.linear.k+rope" deps(%[[C3_6]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 1 : i64, op = "loom.linear", slice = 0 : i64, vector_ops = 12288 : i64}
// CHECK-NEXT: %[[C3_8:[0-9]+]] = sched.compute "layer1.linear.v" deps(%[[C3_7]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 1 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[C3_9:[0-9]+]] = sched.compute "layer1.attention" deps(%[[C3_8]]) {bytes = 49152 : i64, flops = 540672 : i64, layer = 1 : i64, op = "loom.attention", slice = 0 : i64, steps = 2 : i64, vector_ops = 120832 : i64}
// CHECK-NEXT: %[[C3_10:[0-9]+]] = sched.compute "layer1.linear.o" deps(%[[C3_9]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 1 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[C3_11:[0-9]+]] = sched.collective_start all_reduce deps(%[[C3_10]]) {bytes = 16384 : i64, group = array<i64: 2, 3>, tag = 5 : i64}
// CHECK-NEXT: %[[C3_12:[0-9]+]] = sched.collective_done %[[C3_11]]
// CHECK-NEXT: %[[C3_13:[0-9]+]] = sched.compute "layer1.add+rms_norm" deps(%[[C3_12]]) {bytes = 66048 : i64, flops = 0 : i64, layer = 1 : i64, op = "loom.add", slice = 0 : i64, vector_ops = 40960 : i64}
// CHECK-NEXT: %[[C3_14:[0-9]+]] = sched.compute "layer1.linear.gate" deps(%[[C3_13]]) {bytes = 163840 : i64, flops = 4194304 : i64, layer = 1 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[C3_15:[0-9]+]] = sched.compute "layer1.linear.up+swiglu" deps(%[[C3_14]]) {bytes = 180224 : i64, flops = 4194304 : i64, layer = 1 : i64, op = "loom.linear", slice = 0 : i64, vector_ops = 40960 : i64}
// CHECK-NEXT: %[[C3_16:[0-9]+]] = sched.compute "layer1.linear.down" deps(%[[C3_15]]) {bytes = 163840 : i64, flops = 4194304 : i64, layer = 1 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[C3_17:[0-9]+]] = sched.collective_start all_reduce deps(%[[C3_16]]) {bytes = 16384 : i64, group = array<i64: 2, 3>, tag = 6 : i64}
// CHECK-NEXT: %[[C3_18:[0-9]+]] = sched.collective_done %[[C3_17]]
// CHECK-NEXT: %[[C3_19:[0-9]+]] = sched.compute "layer1.add" deps(%[[C3_18]]) {bytes = 49152 : i64, flops = 0 : i64, layer = 1 : i64, op = "loom.add", slice = 0 : i64, vector_ops = 8192 : i64}
// CHECK-NEXT: %[[C3_20:[0-9]+]] = sched.compute "epilogue.rms_norm" deps(%[[C3_19]]) {bytes = 33280 : i64, flops = 0 : i64, layer = -1 : i64, op = "loom.rms_norm", slice = 0 : i64, vector_ops = 32768 : i64}
// CHECK-NEXT: %[[C3_21:[0-9]+]] = sched.compute "epilogue.linear.lm_head" deps(%[[C3_20]]) {bytes = 311296 : i64, flops = 8388608 : i64, layer = -1 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[C3_22:[0-9]+]] = sched.free %[[C3_4]] deps(%[[C3_21]])
// CHECK-NEXT: %[[C3_23:[0-9]+]] = sched.recv from 1 {bytes = 16384 : i64, tag = 11 : i64}
// CHECK-NEXT: %[[C3_24:[0-9]+]] = sched.alloc activations 229376 "slice1.activations" deps(%[[C3_23]], %[[C3_22]])
// CHECK-NEXT: %[[C3_25:[0-9]+]] = sched.compute "layer1.rms_norm" deps(%[[C3_24]]) {bytes = 33280 : i64, flops = 0 : i64, layer = 1 : i64, op = "loom.rms_norm", slice = 1 : i64, vector_ops = 32768 : i64}
// CHECK-NEXT: %[[C3_26:[0-9]+]] = sched.compute "layer1.linear.q+rope" deps(%[[C3_25]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 1 : i64, op = "loom.linear", slice = 1 : i64, vector_ops = 12288 : i64}
// CHECK-NEXT: %[[C3_27:[0-9]+]] = sched.compute "layer1.linear.k+rope" deps(%[[C3_26]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 1 : i64, op = "loom.linear", slice = 1 : i64, vector_ops = 12288 : i64}
// CHECK-NEXT: %[[C3_28:[0-9]+]] = sched.compute "layer1.linear.v" deps(%[[C3_27]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 1 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[C3_29:[0-9]+]] = sched.compute "layer1.attention" deps(%[[C3_28]]) {bytes = 81920 : i64, flops = 1589248 : i64, layer = 1 : i64, op = "loom.attention", slice = 1 : i64, steps = 2 : i64, vector_ops = 143360 : i64}
// CHECK-NEXT: %[[C3_30:[0-9]+]] = sched.compute "layer1.linear.o" deps(%[[C3_29]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 1 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[C3_31:[0-9]+]] = sched.collective_start all_reduce deps(%[[C3_30]]) {bytes = 16384 : i64, group = array<i64: 2, 3>, tag = 12 : i64}
// CHECK-NEXT: %[[C3_32:[0-9]+]] = sched.collective_done %[[C3_31]]
// CHECK-NEXT: %[[C3_33:[0-9]+]] = sched.compute "layer1.add+rms_norm" deps(%[[C3_32]]) {bytes = 66048 : i64, flops = 0 : i64, layer = 1 : i64, op = "loom.add", slice = 1 : i64, vector_ops = 40960 : i64}
// CHECK-NEXT: %[[C3_34:[0-9]+]] = sched.compute "layer1.linear.gate" deps(%[[C3_33]]) {bytes = 163840 : i64, flops = 4194304 : i64, layer = 1 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[C3_35:[0-9]+]] = sched.compute "layer1.linear.up+swiglu" deps(%[[C3_34]]) {bytes = 180224 : i64, flops = 4194304 : i64, layer = 1 : i64, op = "loom.linear", slice = 1 : i64, vector_ops = 40960 : i64}
// CHECK-NEXT: %[[C3_36:[0-9]+]] = sched.compute "layer1.linear.down" deps(%[[C3_35]]) {bytes = 163840 : i64, flops = 4194304 : i64, layer = 1 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[C3_37:[0-9]+]] = sched.collective_start all_reduce deps(%[[C3_36]]) {bytes = 16384 : i64, group = array<i64: 2, 3>, tag = 13 : i64}
// CHECK-NEXT: %[[C3_38:[0-9]+]] = sched.collective_done %[[C3_37]]
// CHECK-NEXT: %[[C3_39:[0-9]+]] = sched.compute "layer1.add" deps(%[[C3_38]]) {bytes = 49152 : i64, flops = 0 : i64, layer = 1 : i64, op = "loom.add", slice = 1 : i64, vector_ops = 8192 : i64}
// CHECK-NEXT: %[[C3_40:[0-9]+]] = sched.compute "epilogue.rms_norm" deps(%[[C3_39]]) {bytes = 33280 : i64, flops = 0 : i64, layer = -1 : i64, op = "loom.rms_norm", slice = 1 : i64, vector_ops = 32768 : i64}
// CHECK-NEXT: %[[C3_41:[0-9]+]] = sched.compute "epilogue.linear.lm_head" deps(%[[C3_40]]) {bytes = 311296 : i64, flops = 8388608 : i64, layer = -1 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[C3_42:[0-9]+]] = sched.free %[[C3_24]] deps(%[[C3_41]])
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }

module attributes {loom.model = #loom.model<name = "tiny-llama", family = "llama", mode = prefill, batch = 1, seq = 64>, loom.parallel = #loom.parallel<tp = 2>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @tiny_llama(%arg0: tensor<1x64xi32> {loom.name = "input_ids"}) -> tensor<1x64x512xbf16> attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [32, 32]>} {
    %0 = loom.embed %arg0 {loom.split = #loom.split<vocab, 2>, vocab = 512 : i64} : tensor<1x64xi32> -> tensor<1x64x256xbf16>
    %1 = loom.all_reduce %0 {group = "tp", group_size = 2 : i64} : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
    %2 = loom.layer 0(%1) {kind = "llama", stage = 0 : i64} : (tensor<1x64x256xbf16>) -> tensor<1x64x256xbf16> {
    ^bb0(%arg1: tensor<1x64x256xbf16>):
      %6 = loom.rms_norm %arg1 : tensor<1x64x256xbf16>
      %7 = loom.linear  q %6 {loom.split = #loom.split<column, 2>} : tensor<1x64x256xbf16> -> tensor<1x64x128xbf16>
      %8 = loom.linear  k %6 {loom.split = #loom.split<column, 2>} : tensor<1x64x256xbf16> -> tensor<1x64x128xbf16>
      %9 = loom.linear  v %6 {loom.split = #loom.split<column, 2>} : tensor<1x64x256xbf16> -> tensor<1x64x128xbf16>
      %10 = loom.rope %7 {head_dim = 64 : i64} : tensor<1x64x128xbf16>
      %11 = loom.rope %8 {head_dim = 64 : i64} : tensor<1x64x128xbf16>
      %12 = loom.attention %10, %11, %9 {causal, head_dim = 64 : i64, heads = 2 : i64, kv_heads = 2 : i64, loom.split = #loom.split<heads, 2>} : tensor<1x64x128xbf16>, tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %13 = loom.linear  o %12 {loom.split = #loom.split<row, 2>} : tensor<1x64x128xbf16> -> tensor<1x64x256xbf16>
      %14 = loom.all_reduce %13 {group = "tp", group_size = 2 : i64} : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      %15 = loom.add %arg1, %14 : tensor<1x64x256xbf16>, tensor<1x64x256xbf16>
      %16 = loom.rms_norm %15 : tensor<1x64x256xbf16>
      %17 = loom.linear  gate %16 {loom.split = #loom.split<column, 2>} : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      %18 = loom.linear  up %16 {loom.split = #loom.split<column, 2>} : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      %19 = loom.swiglu %17, %18 : tensor<1x64x256xbf16>
      %20 = loom.linear  down %19 {loom.split = #loom.split<row, 2>} : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      %21 = loom.all_reduce %20 {group = "tp", group_size = 2 : i64} : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      %22 = loom.add %15, %21 : tensor<1x64x256xbf16>, tensor<1x64x256xbf16>
      loom.yield %22 : tensor<1x64x256xbf16>
    }
    %3 = loom.layer 1(%2) {kind = "llama", stage = 1 : i64} : (tensor<1x64x256xbf16>) -> tensor<1x64x256xbf16> {
    ^bb0(%arg1: tensor<1x64x256xbf16>):
      %6 = loom.rms_norm %arg1 : tensor<1x64x256xbf16>
      %7 = loom.linear  q %6 {loom.split = #loom.split<column, 2>} : tensor<1x64x256xbf16> -> tensor<1x64x128xbf16>
      %8 = loom.linear  k %6 {loom.split = #loom.split<column, 2>} : tensor<1x64x256xbf16> -> tensor<1x64x128xbf16>
      %9 = loom.linear  v %6 {loom.split = #loom.split<column, 2>} : tensor<1x64x256xbf16> -> tensor<1x64x128xbf16>
      %10 = loom.rope %7 {head_dim = 64 : i64} : tensor<1x64x128xbf16>
      %11 = loom.rope %8 {head_dim = 64 : i64} : tensor<1x64x128xbf16>
      %12 = loom.attention %10, %11, %9 {causal, head_dim = 64 : i64, heads = 2 : i64, kv_heads = 2 : i64, loom.split = #loom.split<heads, 2>} : tensor<1x64x128xbf16>, tensor<1x64x128xbf16> -> tensor<1x64x128xbf16>
      %13 = loom.linear  o %12 {loom.split = #loom.split<row, 2>} : tensor<1x64x128xbf16> -> tensor<1x64x256xbf16>
      %14 = loom.all_reduce %13 {group = "tp", group_size = 2 : i64} : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      %15 = loom.add %arg1, %14 : tensor<1x64x256xbf16>, tensor<1x64x256xbf16>
      %16 = loom.rms_norm %15 : tensor<1x64x256xbf16>
      %17 = loom.linear  gate %16 {loom.split = #loom.split<column, 2>} : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      %18 = loom.linear  up %16 {loom.split = #loom.split<column, 2>} : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      %19 = loom.swiglu %17, %18 : tensor<1x64x256xbf16>
      %20 = loom.linear  down %19 {loom.split = #loom.split<row, 2>} : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      %21 = loom.all_reduce %20 {group = "tp", group_size = 2 : i64} : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      %22 = loom.add %15, %21 : tensor<1x64x256xbf16>, tensor<1x64x256xbf16>
      loom.yield %22 : tensor<1x64x256xbf16>
    }
    %4 = loom.rms_norm %3 : tensor<1x64x256xbf16>
    %5 = loom.linear  lm_head %4 {loom.split = #loom.split<vocab, 2>} : tensor<1x64x256xbf16> -> tensor<1x64x512xbf16>
    return %5 : tensor<1x64x512xbf16>
  }
}

