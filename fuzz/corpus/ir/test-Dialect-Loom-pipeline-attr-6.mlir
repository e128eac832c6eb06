

// expected-error @+1 {{slice #1 has 0 tokens; slices must be non-empty}}
func.func @zero() attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [8, 0]>} {
  return
}

