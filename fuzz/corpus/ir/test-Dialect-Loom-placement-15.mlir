

// expected-error @+1 {{'loom.placement' placement block 2x4 does not hold a stage's 16 chips (tp 4 x ep 4) tiling topology v5e-16 (4x4); blocks that do: 4x4}}
module attributes {loom.parallel = #loom.parallel<tp = 4, ep = 4, ep_data = true>, loom.placement = #loom.placement<2x4, tp 2x2 inside ep>, loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
}

