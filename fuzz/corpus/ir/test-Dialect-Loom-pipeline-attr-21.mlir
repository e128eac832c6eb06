

// expected-error @+1 {{the zb-h1 schedule needs at least as many microbatches as stages (2), got 1}}
func.func @zero_bubble_one_microbatch() attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [8], schedule = "zb-h1">} {
  return
}

