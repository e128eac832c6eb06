

// expected-error @+1 {{the tp sub-block 3x1 does not tile the 2x4 block}}
module attributes {loom.placement = #loom.placement<2x4, tp 3x1 inside sp>} {
}

