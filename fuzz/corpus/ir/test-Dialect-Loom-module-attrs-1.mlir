

// Defaults are left out when printed.
// CHECK: module attributes {loom.parallel = #loom.parallel<>}
module attributes {loom.parallel = #loom.parallel<tp = 1, dp = 1>} {}

