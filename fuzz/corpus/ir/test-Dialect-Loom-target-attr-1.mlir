

// v5e wraps an axis of 16 chips only: an 8x16 topology wraps its long axis.
// CHECK: #loom.target<"tpu-v5e", topology = "v5e-128", shape = [8, 16], wrap_axes = [1],
module attributes {loom.target = #loom.target<"tpu-v5e", topology = "v5e-128">} {
}

