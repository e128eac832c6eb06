

// expected-error @+1 {{expected 'tp AxB inside sp' or 'sp AxB inside tp' (ep for sp), got 'tp ... inside tp'}}
module attributes {loom.placement = #loom.placement<2x4, tp 2x1 inside tp>} {
}

