

// expected-error @+1 {{microbatches apply to token slices; PipeFusion patches of a batch run together (got 2 microbatches)}}
func.func @patch_microbatches() attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [4, 4], patches, steps = 2, microbatches = 2>} {
  return
}

