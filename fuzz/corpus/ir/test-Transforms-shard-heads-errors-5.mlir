

// expected-error @+1 {{loom-shard-heads needs a target}}
module {
}

