

// expected-error @+1 {{the ep sub-block 3x1 does not tile the 4x4 block}}
module attributes {loom.placement = #loom.placement<4x4, ep 3x1 inside tp>} {
}

