

// A training step's schedule: printed when not the default (gpipe), quoted
// (1f1b, zb-h1 and zb-h2 are no keywords); a bare keyword parses too.
// CHECK: #loom.pipeline<stages = 1, slices = [8], schedule = "1f1b">
func.func @one_f_one_b() attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [8], schedule = "1f1b">} {
  return
}
// CHECK: #loom.pipeline<stages = 1, slices = [8], schedule = "zb-h1">
func.func @zero_bubble() attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [8], schedule = "zb-h1">} {
  return
}
// CHECK: #loom.pipeline<stages = 1, slices = [8], schedule = "zb-h2">
func.func @zero_bubble_h2() attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [8], schedule = "zb-h2">} {
  return
}
// CHECK: #loom.pipeline<stages = 2, slices = [8], virtual_stages = 2, schedule = "circular">
func.func @circular() attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [8], virtual_stages = 2, schedule = circular>} {
  return
}
// CHECK: #loom.pipeline<stages = 2, slices = [8]>
func.func @gpipe() attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [8], schedule = "gpipe">} {
  return
}

