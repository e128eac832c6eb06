

// expected-error @+1 {{topology 'v5e-16' of 'tpu-v5e' is 4x4, not 2x2}}
module attributes {loom.target = #loom.target<"tpu-v5e", topology = "v5e-16", shape = [2, 2]>} {
}

