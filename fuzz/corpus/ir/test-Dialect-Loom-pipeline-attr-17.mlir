

// expected-error @+1 {{expected tokens, patches, steps, warmup, microbatches, virtual_stages or schedule, got 'microbatch'}}
func.func @misspelt() attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [8], microbatch = 2>} {
  return
}

