

// A 2-D tensor-parallel group's sub-rings run along its block's rows and
// columns whatever the numbering.
// expected-error @+1 {{'loom.placement' placement 'by columns' does not apply to a 2-D tensor-parallel group}}
module attributes {loom.parallel = #loom.parallel<tp = 8, tp_x = 2>, loom.placement = #loom.placement<2x4, tp 2x4 by columns inside sp>, loom.target = #loom.target<"tpu-v5e", shape = [2, 4]>} {
}
