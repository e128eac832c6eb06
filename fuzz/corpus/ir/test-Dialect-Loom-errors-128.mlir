

// expected-error @+1 {{'loom.dp' must be a positive i64}}
module attributes {loom.dp = "two"} {}

