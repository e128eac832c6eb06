

// expected-error @+1 {{'loom.placement' names the group beside tp 'ep', but loom.parallel's is 'sp' (#loom.parallel<tp = 2, sp = 4>)}}
module attributes {loom.parallel = #loom.parallel<tp = 2, sp = 4>, loom.placement = #loom.placement<2x4, tp 2x1 inside ep>, loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
}

