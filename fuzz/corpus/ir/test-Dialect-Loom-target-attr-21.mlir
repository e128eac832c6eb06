

// expected-error @+1 {{'loom.target' belongs on the module}}
func.func @f() attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  return
}

