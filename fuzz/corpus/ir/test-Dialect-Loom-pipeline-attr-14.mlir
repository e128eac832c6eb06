

// expected-error @+1 {{a pipeline needs at least one microbatch, got 0}}
func.func @no_microbatch() attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [8], microbatches = 0>} {
  return
}

