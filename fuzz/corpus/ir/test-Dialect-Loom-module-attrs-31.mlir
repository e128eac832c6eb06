

// expected-error @+1 {{ep 8 must divide tp 4: expert parallelism runs over the tensor-parallel group's chips (or over a group of its own: ep_data)}}
module attributes {loom.parallel = #loom.parallel<tp = 4, ep = 8>} {}

