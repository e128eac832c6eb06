

// expected-error @+1 {{'microbatches' comes at most once, in the order mode, steps, warmup, microbatches, virtual_stages}}
func.func @order() attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [8], virtual_stages = 2, microbatches = 2>} {
  return
}

