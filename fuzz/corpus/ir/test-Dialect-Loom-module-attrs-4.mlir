

// expected-error @+1 {{'loom.model' belongs on the module}}
func.func @f() attributes {loom.model = #loom.model<name = "x", family = "llama", mode = prefill, batch = 1, seq = 1>} {
  return
}

