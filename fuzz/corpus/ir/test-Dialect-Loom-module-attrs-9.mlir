

// expected-error @+1 {{mode diffusion needs steps}}
module attributes {loom.model = #loom.model<name = "x", family = "dit", mode = diffusion, batch = 1, seq = 4>} {}

