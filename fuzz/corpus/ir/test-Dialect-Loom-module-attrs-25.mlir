

// expected-error @+1 {{a model has a square resolution or a height and width, not both}}
module attributes {loom.model = #loom.model<name = "x", family = "sd3", mode = diffusion, batch = 1, seq = 4, steps = 2, resolution = 64, height = 64, width = 32>} {}

