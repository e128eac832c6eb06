

// expected-error @+1 {{unknown attribute 'loom.tp' (loom's: loom.target, loom.model, loom.parallel, loom.pipeline, loom.split, loom.time_us, loom.placement, loom.kept, loom.recompute, loom.offloaded)}}
module attributes {loom.tp = 4 : i64} {}

