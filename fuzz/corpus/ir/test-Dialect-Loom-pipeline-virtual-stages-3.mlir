

// expected-error @+1 {{a pipeline needs at least one virtual stage per stage, got 0}}
func.func @zero() attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [8], virtual_stages = 0>} {
  return
}

