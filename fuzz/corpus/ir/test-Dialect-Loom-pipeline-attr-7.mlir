

// expected-error @+1 {{PipeFusion patches must be equal in size}}
func.func @unequal() attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [5, 3], patches, steps = 4>} {
  return
}

