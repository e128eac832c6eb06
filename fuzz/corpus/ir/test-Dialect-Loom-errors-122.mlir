

// expected-error @+1 {{'loom.model' seq must be a positive i64}}
module attributes {loom.model = {mode = "prefill", seq = 0 : i64}} {}

