

// expected-error @+1 {{unknown argument attribute 'loom.label' (loom's: loom.name)}}
func.func @f(%x: tensor<1xi32> {loom.label = "x"}) {
  return
}

