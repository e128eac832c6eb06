

// v5p has no published measurements to fit: its figures are nominal.
// CHECK: #loom.target<"tpu-v5p", topology = "v5p-128", shape = [4, 4, 4], wrap_axes = [0, 1, 2],
// CHECK-SAME: calibration = #loom.calibration<file = "targets/tpu-v5p.json", name = "nominal", version = 0, program_dispatch = 0.0,
module attributes {loom.target = #loom.target<"tpu-v5p", shape = [4, 4, 4]>} {
}

