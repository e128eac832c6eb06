

// expected-error @+1 {{warmup (5) must be between 0 and steps (4)}}
func.func @warmup() attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [4, 4], patches, steps = 4, warmup = 5>} {
  return
}

