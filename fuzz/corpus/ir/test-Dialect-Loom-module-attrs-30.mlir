

// An expert-parallel group of its own beside tp (ep_data): ep need not
// divide tp, and the group prints and parses back.
// CHECK: module attributes {loom.parallel = #loom.parallel<tp = 4, ep = 8, ep_data = true>}
module attributes {loom.parallel = #loom.parallel<tp = 4, ep = 8, ep_data = true>} {}

