

// expected-error @+1 {{'loom.placement' placement sub-block 1x4 does not hold the tp group's 2 chips tiling the 2x4 block; sub-blocks that do: 1x2, 2x1}}
module attributes {loom.parallel = #loom.parallel<tp = 2, sp = 4>, loom.placement = #loom.placement<2x4, tp 1x4 inside sp>, loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
}

