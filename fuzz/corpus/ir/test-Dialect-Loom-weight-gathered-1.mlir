

// expected-error @+1 {{weight_gathered splits the batch over the tp group and gathers whole layers' weights: it needs tp >= 2 and no tp_x, sp, ep or sequence_parallel, got tp = 1}}
module attributes {loom.parallel = #loom.parallel<weight_gathered = true>} {}

