

// Wider integers would be truncated when read.
// expected-error @+1 {{'loom.model' seq must be a positive i64}}
module attributes {loom.model = {mode = "prefill", seq = 18446744073709551618 : i128}} {}
