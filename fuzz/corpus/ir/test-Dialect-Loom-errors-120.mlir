

// expected-error @+1 {{'loom.model' needs a mode (prefill, decode or diffusion)}}
module attributes {loom.model = {name = "x"}} {}

