

// expected-error @+2 {{expected ::loom::ModelMode to be one of: prefill, decode, diffusion}}
// expected-error @+1 {{failed to parse Loom_ModelAttr parameter 'mode'}}
module attributes {loom.model = #loom.model<name = "x", family = "llama", mode = train, batch = 1, seq = 4>} {}

