

// expected-error @+1 {{ep_data gives the ep chips a group of their own beside tp; it needs ep >= 2 and no sp, got ep = 4 and sp = 2}}
module attributes {loom.parallel = #loom.parallel<tp = 4, ep = 4, sp = 2, ep_data = true>} {}

