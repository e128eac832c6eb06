

// expected-error @+1 {{'loom.time_us' belongs on a loom.layer}}
func.func @f() attributes {loom.time_us = 1.0 : f64} {
  return
}

