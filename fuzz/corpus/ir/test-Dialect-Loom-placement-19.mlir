

// expected-error @+1 {{expected 'columns'}}
module attributes {loom.placement = #loom.placement<2x4, tp 2x4 by rows inside sp>} {
}

