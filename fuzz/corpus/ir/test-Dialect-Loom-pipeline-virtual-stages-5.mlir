

// expected-error @+1 {{virtual_stages = 2 interleaves chunks over several stages, but the pipeline has one stage}}
func.func @one() attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [8], virtual_stages = 2>} {
  return
}

