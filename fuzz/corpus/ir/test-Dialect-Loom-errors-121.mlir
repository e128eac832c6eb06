

// expected-error @+1 {{'loom.model' mode must be prefill, decode or diffusion, got "train"}}
module attributes {loom.model = {mode = "train"}} {}

