

// expected-error @+1 {{expected 'stages inside replicas', 'replicas inside stages' or 'stages in ring'}}
module attributes {loom.placement = #loom.placement<2x4, tp 2x1 inside sp, stages inside stages>} {
}

