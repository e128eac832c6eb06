

// expected-error @+1 {{a model's batch and seq must be positive, got 1 and 0}}
module attributes {loom.model = #loom.model<name = "x", family = "llama", mode = prefill, batch = 1, seq = 0>} {}

