

// expected-error @+2 {{expected true or false, got 'yes'}}
// expected-error @+1 {{failed to parse Loom_ParallelAttr parameter 'sequence_parallel'}}
module attributes {loom.parallel = #loom.parallel<tp = 2, sequence_parallel = yes>} {}

