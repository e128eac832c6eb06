

// expected-error @+1 {{'loom.split' belongs on a loom op}}
func.func @f() attributes {loom.split = #loom.split<row, 2>} {
  return
}

