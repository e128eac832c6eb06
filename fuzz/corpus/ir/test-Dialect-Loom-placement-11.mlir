

// An expert-parallel group of its own (#loom.parallel's ep_data) takes the
// place beside tp that sp would, named "ep".
// CHECK: loom.placement = #loom.placement<4x4, tp 2x2 inside ep>
module attributes {loom.parallel = #loom.parallel<tp = 4, ep = 4, ep_data = true>, loom.placement = #loom.placement<4x4, tp 2x2 inside ep>, loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
}

