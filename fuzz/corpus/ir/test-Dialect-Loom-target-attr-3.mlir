

// expected-error @+1 {{unknown target 'tpu-v9' (known: tpu-v5e, tpu-v5p; --target-file loads another)}}
module attributes {loom.target = #loom.target<"tpu-v9", shape = [4, 4]>} {
}
