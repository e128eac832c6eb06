

// expected-error @+1 {{steps belong to mode diffusion}}
module attributes {loom.model = #loom.model<name = "x", family = "llama", mode = prefill, batch = 1, seq = 4, steps = 50>} {}

