

// expected-error @+1 {{'loom.model' mode diffusion needs steps}}
module attributes {loom.model = {mode = "diffusion"}} {}

