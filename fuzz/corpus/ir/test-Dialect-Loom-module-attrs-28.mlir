

// expected-error @+1 {{tp_x 3 must divide tp 8: the 2-D group is tp_x x (tp / tp_x) chips}}
module attributes {loom.parallel = #loom.parallel<tp = 8, tp_x = 3>} {}

