

// One chip cannot hold a group of four.
// expected-error @+1 {{tp = 4 needs more chips than v5e-1 has (1); valid degrees: 1}}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [1, 1]>} {
}

