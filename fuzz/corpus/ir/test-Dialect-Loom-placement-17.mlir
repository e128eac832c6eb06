

// The tensor-parallel ranks numbered down each column (JAX's
// create_device_mesh order for a v5e slice it has no ring order for).
// CHECK: loom.placement = #loom.placement<2x4, tp 2x4 by columns inside sp>
module attributes {loom.parallel = #loom.parallel<tp = 8>, loom.placement = #loom.placement<2x4, tp 2x4 by columns inside sp>, loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
}

