

// expected-error @+1 {{'by columns' numbers the tensor-parallel ranks, so it follows 'tp AxB', not 'sp AxB'}}
module attributes {loom.placement = #loom.placement<2x4, sp 2x4 by columns inside tp>} {
}

