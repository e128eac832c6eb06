

// expected-error @+1 {{virtual_stages apply to token slices; PipeFusion patches already stream across steps (got 2 virtual stages)}}
func.func @patches() attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [4, 4], patches, steps = 2, virtual_stages = 2>} {
  return
}

