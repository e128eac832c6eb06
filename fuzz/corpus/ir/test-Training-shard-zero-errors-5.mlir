

// expected-error @+1 {{zero 0 with fsdp 4: a group of fsdp > 1 replicas splits the model states at ZeRO stage 1, 2 or 3; fsdp 1 has zero 0}}
module attributes {loom.parallel = #loom.parallel<dp = 4, fsdp = 4>} {}

