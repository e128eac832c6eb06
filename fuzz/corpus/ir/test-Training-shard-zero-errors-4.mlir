

// The attribute's own checks.
// expected-error @+1 {{fsdp 3 must divide dp 4: the model states are split within groups of fsdp data-parallel replicas}}
module attributes {loom.parallel = #loom.parallel<dp = 4, fsdp = 3, zero = 3>} {}

