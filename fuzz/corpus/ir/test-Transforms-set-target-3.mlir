

// ... and another is refused.
// expected-error @+1 {{loom-set-target: the module is already planned for topology v5e-4 of tpu-v5e; re-plan from the imported model for v5e-8}}
module attributes {loom.parallel = #loom.parallel<tp = 2>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
}

// Any bundled target's topology: v5p-8 is 2 x 2 x 1 chips of tpu-v5p.
// V5P: module attributes {loom.target = #loom.target<"tpu-v5p", topology = "v5p-8", shape = [2, 2, 1], wrap_axes = [], chip = #loom.chip<peak_bf16 = 4.59e+14,

// UNKNOWN: error: loom-set-target: unknown topology 'v5e-3'; tpu-v5e has: v5e-1 (1x1), v5e-4 (2x2), v5e-8 (2x4), v5e-16 (4x4), v5e-32 (4x8), v5e-64 (8x8), v5e-128 (8x16), v5e-256 (16x16) (tpu-v5p's are listed in targets/tpu-v5p.json)
// NONE: error: loom-set-target needs a topology, e.g. --loom-set-target=topology=v5e-16
