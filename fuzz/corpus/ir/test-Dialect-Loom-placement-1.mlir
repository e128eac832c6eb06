

// CHECK: loom.placement = #loom.placement<2x4, sp 2x2 inside tp, replicas inside stages>
module attributes {loom.parallel = #loom.parallel<tp = 2, sp = 4>, loom.placement = #loom.placement<2x4, sp 2x2 inside tp, replicas inside stages>, loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
}

