

// expected-error @+1 {{a model's height and width go together, and frames need both}}
module attributes {loom.model = #loom.model<name = "x", family = "wan", mode = diffusion, batch = 1, seq = 4, steps = 2, frames = 9>} {}

