

// expected-error @+1 {{loom-split-tokens found no model function with loom.layer ops}}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
}

