

// expected-error @+1 {{unknown target 'tpu-v9' (bundled: tpu-v5e, tpu-v5p); give its figures, or set it with loom-set-target="file=... topology=..."}}
module attributes {loom.target = #loom.target<"tpu-v9", shape = [4, 4]>} {
}

