

// expected-error @+1 {{a pipeline schedule orders a training step's microbatches; PipeFusion patches take none (got circular)}}
func.func @patch_schedule() attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [4, 4], patches, steps = 2, schedule = "circular">} {
  return
}
