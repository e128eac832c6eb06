

// expected-error @+1 {{'loom.model' must be a #loom.model, got {mode = "prefill"}}}
module attributes {loom.model = {mode = "prefill"}} {}

