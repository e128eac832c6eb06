// The plan of two-layer.mlir (tp=2, 2 stages, 2 slices of 32 tokens) with
// the two slices interleaved: each stage runs the slices' ops zipped, so
// that slice 0's all-reduce runs while the TensorCore computes the same op
// of slice 1 (docs/overlap.md). Every task keeps its FLOPs and bytes and
// depends only on its own slice's previous task; tags are given in program
// order; a stage holds both slices' activations, and each slice leaves for
// the next stage as soon as its own work is done.
// RUN: loom-opt %S/two-layer.mlir --convert-loom-to-sched=interleave=2 | FileCheck %s
// Interleave 1 is the program of two-layer.mlir, unchanged.
// RUN: loom-opt %S/two-layer.mlir --convert-loom-to-sched=interleave=1 > %t.1
// RUN: loom-opt %S/two-layer.mlir --convert-loom-to-sched > %t.default
// RUN: diff %t.1 %t.default

// CHECK-LABEL: sched.chip 0 {
// CHECK-NEXT: %[[A0:[0-9]+]] = sched.alloc weights 262144 "prologue.weights"
// CHECK-NEXT: %[[A1:[0-9]+]] = sched.alloc weights 656384 "layer0.weights"
// CHECK-NEXT: %[[A2:[0-9]+]] = sched.alloc kv_cache 32768 "layer0.kv"
// CHECK-NEXT: %[[A3:[0-9]+]] = sched.alloc activations 229376 "slice0.activations"
// CHECK-NEXT: %[[A4:[0-9]+]] = sched.alloc activations 229376 "slice1.activations"
// CHECK-NEXT: %[[A5:[0-9]+]] = sched.compute "prologue.embed" deps(%[[A3]]) {bytes = 32896 : i64, flops = 0 : i64, layer = -1 : i64, op = "loom.embed", slice = 0 : i64}
// CHECK-NEXT: %[[A6:[0-9]+]] = sched.compute "prologue.embed" deps(%[[A4]]) {bytes = 32896 : i64, flops = 0 : i64, layer = -1 : i64, op = "loom.embed", slice = 1 : i64}
// CHECK-NEXT: %[[A7:[0-9]+]] = sched.collective_start all_reduce deps(%[[A5]]) {bytes = 16384 : i64, group = array<i64: 0, 1>, tag = 0 : i64}
// CHECK-NEXT: %[[A8:[0-9]+]] = sched.collective_done %[[A7]]
// CHECK-NEXT: %[[A9:[0-9]+]] = sched.collective_start all_reduce deps(%[[A6]]) {bytes = 16384 : i64, group = array<i64: 0, 1>, tag = 1 : i64}
// CHECK-NEXT: %[[A10:[0-9]+]] = sched.collective_done %[[A9]]
// CHECK-NEXT: %[[A11:[0-9]+]] = sched.compute "layer0.rms_norm" deps(%[[A8]]) {bytes = 33280 : i64, flops = 0 : i64, layer = 0 : i64, op = "loom.rms_norm", slice = 0 : i64, vector_ops = 32768 : i64}
// CHECK-NEXT: %[[A12:[0-9]+]] = sched.compute "layer0.rms_norm" deps(%[[A10]]) {bytes = 33280 : i64, flops = 0 : i64, layer = 0 : i64, op = "loom.rms_norm", slice = 1 : i64, vector_ops = 32768 : i64}
// CHECK-NEXT: %[[A13:[0-9]+]] = sched.compute "layer0.linear.q+rope" deps(%[[A11]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 0 : i64, op = "loom.linear", slice = 0 : i64, vector_ops = 12288 : i64}
// CHECK-NEXT: %[[A14:[0-9]+]] = sched.compute "layer0.linear.q+rope" deps(%[[A12]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 0 : i64, op = "loom.linear", slice = 1 : i64, vector_ops = 12288 : i64}
// CHECK-NEXT: %[[A15:[0-9]+]] = sched.compute "layer0.linear.k+rope" deps(%[[A13]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 0 : i64, op = "loom.linear", slice = 0 : i64, vector_ops = 12288 : i64}
// CHECK-NEXT: %[[A16:[0-9]+]] = sched.compute "layer0.linear.k+rope" deps(%[[A14]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 0 : i64, op = "loom.linear", slice = 1 : i64, vector_ops = 12288 : i64}
// CHECK-NEXT: %[[A17:[0-9]+]] = sched.compute "layer0.linear.v" deps(%[[A15]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 0 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[A18:[0-9]+]] = sched.compute "layer0.linear.v" deps(%[[A16]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 0 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[A19:[0-9]+]] = sched.compute "layer0.attention" deps(%[[A17]]) {bytes = 49152 : i64, flops = 540672 : i64, layer = 0 : i64, op = "loom.attention", slice = 0 : i64, steps = 2 : i64, vector_ops = 120832 : i64}
// CHECK-NEXT: %[[A20:[0-9]+]] = sched.compute "layer0.attention" deps(%[[A18]]) {bytes = 81920 : i64, flops = 1589248 : i64, layer = 0 : i64, op = "loom.attention", slice = 1 : i64, steps = 2 : i64, vector_ops = 143360 : i64}
// CHECK-NEXT: %[[A21:[0-9]+]] = sched.compute "layer0.linear.o" deps(%[[A19]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 0 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[A22:[0-9]+]] = sched.compute "layer0.linear.o" deps(%[[A20]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 0 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[A23:[0-9]+]] = sched.collective_start all_reduce deps(%[[A21]]) {bytes = 16384 : i64, group = array<i64: 0, 1>, tag = 2 : i64}
// CHECK-NEXT: %[[A24:[0-9]+]] = sched.collective_done %[[A23]]
// CHECK-NEXT: %[[A25:[0-9]+]] = sched.collective_start all_reduce deps(%[[A22]]) {bytes = 16384 : i64, group = array<i64: 0, 1>, tag = 3 : i64}
// CHECK-NEXT: %[[A26:[0-9]+]] = sched.collective_done %[[A25]]
// CHECK-NEXT: %[[A27:[0-9]+]] = sched.compute "layer0.add+rms_norm" deps(%[[A24]]) {bytes = 66048 : i64, flops = 0 : i64, layer = 0 : i64, op = "loom.add", slice = 0 : i64, vector_ops = 40960 : i64}
// CHECK-NEXT: %[[A28:[0-9]+]] = sched.compute "layer0.add+rms_norm" deps(%[[A26]]) {bytes = 66048 : i64, flops = 0 : i64, layer = 0 : i64, op = "loom.add", slice = 1 : i64, vector_ops = 40960 : i64}
// CHECK-NEXT: %[[A29:[0-9]+]] = sched.compute "layer0.linear.gate" deps(%[[A27]]) {bytes = 163840 : i64, flops = 4194304 : i64, layer = 0 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[A30:[0-9]+]] = sched.compute "layer0.linear.gate" deps(%[[A28]]) {bytes = 163840 : i64, flops = 4194304 : i64, layer = 0 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[A31:[0-9]+]] = sched.compute "layer0.linear.up+swiglu" deps(%[[A29]]) {bytes = 180224 : i64, flops = 4194304 : i64, layer = 0 : i64, op = "loom.linear", slice = 0 : i64, vector_ops = 40960 : i64}
// CHECK-NEXT: %[[A32:[0-9]+]] = sched.compute "layer0.linear.up+swiglu" deps(%[[A30]]) {bytes = 180224 : i64, flops = 4194304 : i64, layer = 0 : i64, op = "loom.linear", slice = 1 : i64, vector_ops = 40960 : i64}
// CHECK-NEXT: %[[A33:[0-9]+]] = sched.compute "layer0.linear.down" deps(%[[A31]]) {bytes = 163840 : i64, flops = 4194304 : i64, layer = 0 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[A34:[0-9]+]] = sched.compute "layer0.linear.down" deps(%[[A32]]) {bytes = 163840 : i64, flops = 4194304 : i64, layer = 0 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[A35:[0-9]+]] = sched.collective_start all_reduce deps(%[[A33]]) {bytes = 16384 : i64, group = array<i64: 0, 1>, tag = 4 : i64}
// CHECK-NEXT: %[[A36:[0-9]+]] = sched.collective_done %[[A35]]
// CHECK-NEXT: %[[A37:[0-9]+]] = sched.collective_start all_reduce deps(%[[A34]]) {bytes = 16384 : i64, group = array<i64: 0, 1>, tag = 5 : i64}
// CHECK-NEXT: %[[A38:[0-9]+]] = sched.collective_done %[[A37]]
// CHECK-NEXT: %[[A39:[0-9]+]] = sched.compute "layer0.add" deps(%[[A36]]) {bytes = 49152 : i64, flops = 0 : i64, layer = 0 : i64, op = "loom.add", slice = 0 : i64, vector_ops = 8192 : i64}
// CHECK-NEXT: %[[A40:[0-9]+]] = sched.compute "layer0.add" deps(%[[A38]]) {bytes = 49152 : i64, flops = 0 : i64, layer = 0 : i64, op = "loom.add", slice = 1 : i64, vector_ops = 8192 : i64}
// CHECK-NEXT: %[[A41:[0-9]+]] = sched.send to 2 deps(%[[A39]]) {bytes = 16384 : i64, tag = 6 : i64}
// CHECK-NEXT: %[[A42:[0-9]+]] = sched.free %[[A3]] deps(%[[A39]])
// CHECK-NEXT: %[[A43:[0-9]+]] = sched.send to 2 deps(%[[A40]]) {bytes = 16384 : i64, tag = 8 : i64}
// CHECK-NEXT: %[[A44:[0-9]+]] = sched.free %[[A4]] deps(%[[A40]])
// CHECK-NEXT: }
// CHECK-LABEL: sched.chip 2 {
// CHECK-NEXT: %[[B0:[0-9]+]] = sched.alloc weights 656384 "layer1.weights"
// CHECK-NEXT: %[[B1:[0-9]+]] = sched.alloc kv_cache 32768 "layer1.kv"
// CHECK-NEXT: %[[B2:[0-9]+]] = sched.alloc weights 262656 "epilogue.weights"
// CHECK-NEXT: %[[B3:[0-9]+]] = sched.recv from 0 {bytes = 16384 : i64, tag = 6 : i64}
// CHECK-NEXT: %[[B4:[0-9]+]] = sched.alloc activations 229376 "slice0.activations" deps(%[[B3]])
// CHECK-NEXT: %[[B5:[0-9]+]] = sched.recv from 0 {bytes = 16384 : i64, tag = 8 : i64}
// CHECK-NEXT: %[[B6:[0-9]+]] = sched.alloc activations 229376 "slice1.activations" deps(%[[B5]])
// CHECK-NEXT: %[[B7:[0-9]+]] = sched.compute "layer1.rms_norm" deps(%[[B4]]) {bytes = 33280 : i64, flops = 0 : i64, layer = 1 : i64, op = "loom.rms_norm", slice = 0 : i64, vector_ops = 32768 : i64}
// CHECK-NEXT: %[[B8:[0-9]+]] = sched.compute "layer1.rms_norm" deps(%[[B6]]) {bytes = 33280 : i64, flops = 0 : i64, layer = 1 : i64, op = "loom.rms_norm", slice = 1 : i64, vector_ops = 32768 : i64}
// CHECK-NEXT: %[[B9:[0-9]+]] = sched.compute "layer1.linear.q+rope" deps(%[[B7]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 1 : i64, op = "loom.linear", slice = 0 : i64, vector_ops = 12288 : i64}
// CHECK-NEXT: %[[B10:[0-9]+]] = sched.compute "layer1.linear.q+rope" deps(%[[B8]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 1 : i64, op = "loom.linear", slice = 1 : i64, vector_ops = 12288 : i64}
// CHECK-NEXT: %[[B11:[0-9]+]] = sched.compute "layer1.linear.k+rope" deps(%[[B9]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 1 : i64, op = "loom.linear", slice = 0 : i64, vector_ops = 12288 : i64}
// CHECK-NEXT: %[[B12:[0-9]+]] = sched.compute "layer1.linear.k+rope" deps(%[[B10]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 1 : i64, op = "loom.linear", slice = 1 : i64, vector_ops = 12288 : i64}
// CHECK-NEXT: %[[B13:[0-9]+]] = sched.compute "layer1.linear.v" deps(%[[B11]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 1 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[B14:[0-9]+]] = sched.compute "layer1.linear.v" deps(%[[B12]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 1 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[B15:[0-9]+]] = sched.compute "layer1.attention" deps(%[[B13]]) {bytes = 49152 : i64, flops = 540672 : i64, layer = 1 : i64, op = "loom.attention", slice = 0 : i64, steps = 2 : i64, vector_ops = 120832 : i64}
// CHECK-NEXT: %[[B16:[0-9]+]] = sched.compute "layer1.attention" deps(%[[B14]]) {bytes = 81920 : i64, flops = 1589248 : i64, layer = 1 : i64, op = "loom.attention", slice = 1 : i64, steps = 2 : i64, vector_ops = 143360 : i64}
// CHECK-NEXT: %[[B17:[0-9]+]] = sched.compute "layer1.linear.o" deps(%[[B15]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 1 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[B18:[0-9]+]] = sched.compute "layer1.linear.o" deps(%[[B16]]) {bytes = 90112 : i64, flops = 2097152 : i64, layer = 1 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[B19:[0-9]+]] = sched.collective_start all_reduce deps(%[[B17]]) {bytes = 16384 : i64, group = array<i64: 2, 3>, tag = 10 : i64}
// CHECK-NEXT: %[[B20:[0-9]+]] = sched.collective_done %[[B19]]
// CHECK-NEXT: %[[B21:[0-9]+]] = sched.collective_start all_reduce deps(%[[B18]]) {bytes = 16384 : i64, group = array<i64: 2, 3>, tag = 11 : i64}
// CHECK-NEXT: %[[B22:[0-9]+]] = sched.collective_done %[[B21]]
// CHECK-NEXT: %[[B23:[0-9]+]] = sched.compute "layer1.add+rms_norm" deps(%[[B20]]) {bytes = 66048 : i64, flops = 0 : i64, layer = 1 : i64, op = "loom.add", slice = 0 : i64, vector_ops = 40960 : i64}
// CHECK-NEXT: %[[B24:[0-9]+]] = sched.compute "layer1.add+rms_norm" deps(%[[B22]]) {bytes = 66048 : i64, flops = 0 : i64, layer = 1 : i64, op = "loom.add", slice = 1 : i64, vector_ops = 40960 : i64}
// CHECK-NEXT: %[[B25:[0-9]+]] = sched.compute "layer1.linear.gate" deps(%[[B23]]) {bytes = 163840 : i64, flops = 4194304 : i64, layer = 1 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[B26:[0-9]+]] = sched.compute "layer1.linear.gate" deps(%[[B24]]) {bytes = 163840 : i64, flops = 4194304 : i64, layer = 1 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[B27:[0-9]+]] = sched.compute "layer1.linear.up+swiglu" deps(%[[B25]]) {bytes = 180224 : i64, flops = 4194304 : i64, layer = 1 : i64, op = "loom.linear", slice = 0 : i64, vector_ops = 40960 : i64}
// CHECK-NEXT: %[[B28:[0-9]+]] = sched.compute "layer1.linear.up+swiglu" deps(%[[B26]]) {bytes = 180224 : i64, flops = 4194304 : i64, layer = 1 : i64, op = "loom.linear", slice = 1 : i64, vector_ops = 40960 : i64}
// CHECK-NEXT: %[[B29:[0-9]+]] = sched.compute "layer1.linear.down" deps(%[[B27]]) {bytes = 163840 : i64, flops = 4194304 : i64, layer = 1 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[B30:[0-9]+]] = sched.compute "layer1.linear.down" deps(%[[B28]]) {bytes = 163840 : i64, flops = 4194304 : i64, layer = 1 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[B31:[0-9]+]] = sched.collective_start all_reduce deps(%[[B29]]) {bytes = 16384 : i64, group = array<i64: 2, 3>, tag = 12 : i64}
// CHECK-NEXT: %[[B32:[0-9]+]] = sched.collective_done %[[B31]]
// CHECK-NEXT: %[[B33:[0-9]+]] = sched.collective_start all_reduce deps(%[[B30]]) {bytes = 16384 : i64, group = array<i64: 2, 3>, tag = 13 : i64}
// CHECK-NEXT: %[[B34:[0-9]+]] = sched.collective_done %[[B33]]
// CHECK-NEXT: %[[B35:[0-9]+]] = sched.compute "layer1.add" deps(%[[B32]]) {bytes = 49152 : i64, flops = 0 : i64, layer = 1 : i64, op = "loom.add", slice = 0 : i64, vector_ops = 8192 : i64}
// CHECK-NEXT: %[[B36:[0-9]+]] = sched.compute "layer1.add" deps(%[[B34]]) {bytes = 49152 : i64, flops = 0 : i64, layer = 1 : i64, op = "loom.add", slice = 1 : i64, vector_ops = 8192 : i64}
// CHECK-NEXT: %[[B37:[0-9]+]] = sched.compute "epilogue.rms_norm" deps(%[[B35]]) {bytes = 33280 : i64, flops = 0 : i64, layer = -1 : i64, op = "loom.rms_norm", slice = 0 : i64, vector_ops = 32768 : i64}
// CHECK-NEXT: %[[B38:[0-9]+]] = sched.compute "epilogue.rms_norm" deps(%[[B36]]) {bytes = 33280 : i64, flops = 0 : i64, layer = -1 : i64, op = "loom.rms_norm", slice = 1 : i64, vector_ops = 32768 : i64}
// CHECK-NEXT: %[[B39:[0-9]+]] = sched.compute "epilogue.linear.lm_head" deps(%[[B37]]) {bytes = 311296 : i64, flops = 8388608 : i64, layer = -1 : i64, op = "loom.linear", slice = 0 : i64}
// CHECK-NEXT: %[[B40:[0-9]+]] = sched.compute "epilogue.linear.lm_head" deps(%[[B38]]) {bytes = 311296 : i64, flops = 8388608 : i64, layer = -1 : i64, op = "loom.linear", slice = 1 : i64}
// CHECK-NEXT: %[[B41:[0-9]+]] = sched.free %[[B4]] deps(%[[B39]])
// CHECK-NEXT: %[[B42:[0-9]+]] = sched.free %[[B6]] deps(%[[B40]])
// CHECK-NEXT: }
