

// A planned module (it has a layout) keeps the target it was planned for:
// setting the same one again is no change ...
// CHECK-LABEL: module attributes {loom.parallel = #loom.parallel<tp = 2>, loom.target = #loom.target<"tpu-v5e", topology = "v5e-8", shape = [2, 4],
module attributes {loom.parallel = #loom.parallel<tp = 2>, loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
}

