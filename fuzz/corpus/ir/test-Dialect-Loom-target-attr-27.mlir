

// expected-error @+1 {{target 'tpu-v5e': topology '0xv5e-16': the slice count '0' must be an integer of at least 1}}
module attributes {loom.target = #loom.target<"tpu-v5e", topology = "0xv5e-16">} {
}
