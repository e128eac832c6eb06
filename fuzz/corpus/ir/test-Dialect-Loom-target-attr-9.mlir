

// expected-error @+1 {{target 'tpu-v5e' has no 3x4 topology; valid topologies: v5e-1 (1x1), v5e-4 (2x2), v5e-8 (2x4), v5e-16 (4x4), v5e-32 (4x8), v5e-64 (8x8), v5e-128 (8x16), v5e-256 (16x16)}}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [3, 4]>} {
}

