

func.func @layer_empty_body() {
  // expected-error @+1 {{'loom.layer' op expects a non-empty block}}
  loom.layer 0 () : () -> () {
  }
  return
}

