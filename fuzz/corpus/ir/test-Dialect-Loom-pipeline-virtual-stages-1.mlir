

// CHECK: #loom.pipeline<stages = 4, slices = [8], steps = 3, virtual_stages = 4>
func.func @both() attributes {loom.pipeline = #loom.pipeline<stages = 4, slices = [8], steps = 3, virtual_stages = 4>} {
  return
}

