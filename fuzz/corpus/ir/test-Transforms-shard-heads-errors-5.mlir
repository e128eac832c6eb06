

// expected-error @+1 {{the module is already sharded (loom.tp = 2 : i64)}}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>, loom.tp = 2 : i64} {
}
