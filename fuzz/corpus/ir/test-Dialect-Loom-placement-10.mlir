

module {
  // expected-error @+1 {{'loom.placement' belongs on the module}}
  func.func @f() attributes {loom.placement = #loom.placement<1x1, tp 1x1 inside sp>} {
    return
  }
}

