

// expected-error @+1 {{zero 2 with fsdp 1}}
module attributes {loom.parallel = #loom.parallel<dp = 4, zero = 2>} {}
