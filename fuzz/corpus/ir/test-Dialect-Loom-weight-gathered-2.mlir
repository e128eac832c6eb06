

// expected-error @+1 {{it needs tp >= 2 and no tp_x, sp, ep or sequence_parallel, got tp = 8}}
module attributes {loom.parallel = #loom.parallel<tp = 8, tp_x = 2, weight_gathered = true>} {}

