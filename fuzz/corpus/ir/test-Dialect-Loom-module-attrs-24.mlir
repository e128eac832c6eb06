

// A video DiT's workload: frames, height and width in pixels.
// CHECK: #loom.model<name = "wan", family = "wan", mode = diffusion, batch = 2, seq = 75600, text_tokens = 512, steps = 50, height = 720, width = 1280, frames = 81>
module attributes {loom.model = #loom.model<name = "wan", family = "wan", mode = diffusion, batch = 2, seq = 75600, text_tokens = 512, steps = 50, height = 720, width = 1280, frames = 81>} {}

