

// expected-error @+1 {{'loom.model' steps belong to mode diffusion}}
module attributes {loom.model = {mode = "prefill", steps = 50 : i64}} {}

