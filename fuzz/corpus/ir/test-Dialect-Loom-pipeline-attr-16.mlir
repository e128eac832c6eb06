

// The optional parts come once each, in order.
// expected-error @+1 {{'steps' comes at most once, in the order mode, steps, warmup, microbatches}}
func.func @out_of_order() attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [8], microbatches = 2, steps = 3>} {
  return
}

