

// Each replica's stage blocks walk a closed cycle.
// CHECK: loom.placement = #loom.placement<2x4, tp 2x4 inside sp, stages in ring>
module attributes {loom.parallel = #loom.parallel<tp = 8>, loom.placement = #loom.placement<2x4, tp 2x4 inside sp, stages in ring>, loom.target = #loom.target<"tpu-v5e", shape = [8, 8]>} {
  func.func @f() attributes {loom.pipeline = #loom.pipeline<stages = 8, slices = [2048]>} {
    return
  }
}

