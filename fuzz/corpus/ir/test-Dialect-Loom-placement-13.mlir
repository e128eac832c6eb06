

// expected-error @+1 {{'loom.placement' names the group beside tp 'sp', but loom.parallel's is 'ep' (#loom.parallel<tp = 4, ep = 4, ep_data = true>)}}
module attributes {loom.parallel = #loom.parallel<tp = 4, ep = 4, ep_data = true>, loom.placement = #loom.placement<4x4, tp 2x2 inside sp>, loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
}

