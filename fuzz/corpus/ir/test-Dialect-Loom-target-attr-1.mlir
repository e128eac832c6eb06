

// CHECK: module attributes {loom.target = #loom.target<"tpu-v5p", shape = [4, 4, 4]>}
module attributes {loom.target = #loom.target<"tpu-v5p", shape = [4, 4, 4]>} {
}

