

// expected-error @+1 {{'loom.placement' placement block 2x2 does not hold a stage's 8 chips (tp 2 x sp 4) tiling topology v5e-8 (2x4); blocks that do: 2x4}}
module attributes {loom.parallel = #loom.parallel<tp = 2, sp = 4>, loom.placement = #loom.placement<2x2, tp 2x1 inside sp>, loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
}

