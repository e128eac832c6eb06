

// CHECK: #loom.target<"tpu-v5p", topology = "v5p-128", shape = [4, 4, 4], wrap_axes = [0, 1, 2],
module attributes {loom.target = #loom.target<"tpu-v5p", shape = [4, 4, 4]>} {
}

