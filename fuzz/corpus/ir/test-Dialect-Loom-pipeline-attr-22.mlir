

// ZB-H2's first stage runs 2p - 1 forwards before its first backward pass.
// expected-error @+1 {{the zb-h2 schedule needs at least 2 x stages - 1 (7) microbatches, got 6}}
func.func @zero_bubble_h2_few_microbatches() attributes {loom.pipeline = #loom.pipeline<stages = 4, slices = [8], microbatches = 6, schedule = "zb-h2">} {
  return
}

