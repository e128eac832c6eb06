

// expected-error @+1 {{target 'tpu-v5e' gives some of its figures; give shape, wrap_axes, chip and ici together, or none for a bundled target}}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2], ici = #loom.ici<link_bandwidth = 1.0e11, hop_latency = 1.0e-6>>} {
}

