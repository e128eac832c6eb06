

// An unplanned module's target is replaced; its other attributes stay.
// CHECK-LABEL: module attributes {loom.model = #loom.model<name = "m", family = "llama", mode = prefill, batch = 1, seq = 8>, loom.target = #loom.target<"tpu-v5e", topology = "v5e-8", shape = [2, 4],
module attributes {loom.model = #loom.model<name = "m", family = "llama", mode = prefill, batch = 1, seq = 8>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
}

