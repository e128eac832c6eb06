

// expected-error @+1 {{a 2-D tensor-parallel group (tp_x = 2) runs without sp, ep or sequence_parallel}}
module attributes {loom.parallel = #loom.parallel<tp = 8, sequence_parallel = true, tp_x = 2>} {}

