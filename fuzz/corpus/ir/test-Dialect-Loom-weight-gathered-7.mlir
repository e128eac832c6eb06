

// Outside a layer there is no layer to gather for.
func.func @g() {
  // expected-error @+1 {{'loom.gather_weights' op expects parent op 'loom.layer'}}
  loom.gather_weights {bytes = 0 : i64, group = "tp", group_size = 2 : i64}
  return
}
