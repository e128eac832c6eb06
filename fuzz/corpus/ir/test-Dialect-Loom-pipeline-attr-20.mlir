

// expected-error @+1 {{the 1f1b schedule needs at least as many microbatches as stages (4), got 2}}
func.func @too_few_microbatches() attributes {loom.pipeline = #loom.pipeline<stages = 4, slices = [8], microbatches = 2, schedule = "1f1b">} {
  return
}

