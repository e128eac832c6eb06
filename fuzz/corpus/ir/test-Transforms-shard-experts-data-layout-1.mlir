

// expected-error @+1 {{loom-shard-experts needs a target}}
module attributes {loom.model = #loom.model<name = "moe", family = "mixtral", mode = prefill, batch = 8, seq = 16>} {
}
