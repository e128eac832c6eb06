

// expected-error @+1 {{unknown key 'slice' (known: topology, shape, wrap_axes, chip, ici, calibration, dcn)}}
module attributes {loom.target = #loom.target<"tpu-v5e", slice = "v5e-16">} {
}

