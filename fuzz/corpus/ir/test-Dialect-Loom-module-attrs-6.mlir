

// expected-error @+1 {{tp and dp must be positive, got 0 and 1}}
module attributes {loom.parallel = #loom.parallel<tp = 0>} {}

