

// expected-error @+1 {{'loom.model' has unknown key 'tokens' (known: name, family, mode, batch, seq, resolution, text_tokens, steps)}}
module attributes {loom.model = {mode = "prefill", tokens = 4 : i64}} {}

