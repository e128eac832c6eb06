

// expected-error @+1 {{stages x virtual_stages = 4 x 4611686018427387904 chunks is 2^63 or more}}
func.func @overflow() attributes {loom.pipeline = #loom.pipeline<stages = 4, slices = [8], virtual_stages = 4611686018427387904>} {
  return
}

