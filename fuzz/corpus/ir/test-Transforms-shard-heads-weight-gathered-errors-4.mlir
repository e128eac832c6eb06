

// Already sharded.
// expected-error @+1 {{the module is already sharded (loom.parallel = #loom.parallel<tp = 2>)}}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>, loom.parallel = #loom.parallel<tp = 2>} {
}

