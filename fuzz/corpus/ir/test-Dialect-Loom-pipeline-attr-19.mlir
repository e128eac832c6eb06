

// expected-error @+1 {{unknown pipeline schedule '1f2b' (valid: gpipe, 1f1b, interleaved, zb-h1, circular, zb-h2)}}
func.func @unknown_schedule() attributes {loom.pipeline = #loom.pipeline<stages = 2, slices = [8], schedule = "1f2b">} {
  return
}

