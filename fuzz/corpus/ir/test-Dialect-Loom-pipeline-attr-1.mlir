

// CHECK: #loom.pipeline<stages = 4, slices = [256, 256], patches, steps = 50, warmup = 1>
func.func @patches() attributes {loom.pipeline = #loom.pipeline<stages = 4, slices = [256, 256], patches, steps = 50, warmup = 1>} {
  return
}

