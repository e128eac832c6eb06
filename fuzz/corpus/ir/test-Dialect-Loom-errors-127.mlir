

// expected-error @+1 {{'loom.tp' must be a positive i64}}
module attributes {loom.tp = 0 : i64} {}

