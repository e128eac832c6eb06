

func.func @param_dynamic_shape() {
  // expected-error @+1 {{'loom.param' op result #0 must be statically shaped tensor of any type values, but got 'tensor<?xf32>'}}
  %0 = loom.param "w" : tensor<?xf32>
  return
}

//===----------------------------------------------------------------------===//
// loom.embed / loom.position_embed
//===----------------------------------------------------------------------===//

