

// expected-error @+1 {{sequence_parallel splits activations across the tensor-parallel group, so it needs tp >= 2}}
module attributes {loom.parallel = #loom.parallel<sequence_parallel = true>} {}

