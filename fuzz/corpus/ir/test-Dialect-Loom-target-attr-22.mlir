

// Several slices joined by the data-center network: the count and the
// bundled target's DCN figures (its host section) in #loom.dcn; the shape
// is one slice's.
// CHECK: #loom.target<"tpu-v5e", topology = "4xv5e-256", shape = [16, 16], wrap_axes = [0, 1],
// CHECK-SAME: dcn = #loom.dcn<slices = 4, chips_per_host = 8, bandwidth = 1.25e+10, latency = 0.0001>>
module attributes {loom.target = #loom.target<"tpu-v5e", topology = "4xv5e-256">} {
}

