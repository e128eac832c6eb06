

// CHECK: loom.placement = #loom.placement<4x4, ep 1x4 inside tp, replicas inside stages>
module attributes {loom.parallel = #loom.parallel<tp = 4, ep = 4, ep_data = true>, loom.placement = #loom.placement<4x4, ep 1x4 inside tp, replicas inside stages>, loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
}

