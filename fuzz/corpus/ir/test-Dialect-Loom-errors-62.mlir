

func.func @concat_no_inputs() {
  // expected-error @+1 {{'loom.concat' op expects at least one input}}
  %0 = loom.concat {dim = 0} : () -> tensor<4xf32>
  return
}

