

func.func @layer_negative_index() {
  // expected-error @+1 {{attribute 'index' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  loom.layer -1 () : () -> () {
    loom.yield
  }
  return
}

