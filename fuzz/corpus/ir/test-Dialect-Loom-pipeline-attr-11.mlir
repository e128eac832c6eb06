

// The steps are the model's.
module attributes {loom.model = #loom.model<name = "dit", family = "dit", mode = diffusion, batch = 1, seq = 4, steps = 50>} {
  // expected-error @+1 {{'loom.pipeline' runs 3 denoising steps, but the model's loom.model has 50}}
  func.func @steps() attributes {loom.pipeline = #loom.pipeline<stages = 1, slices = [4], patches, steps = 3>} {
    return
  }
}

