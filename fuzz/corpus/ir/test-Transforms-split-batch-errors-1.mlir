

// expected-error @+1 {{loom-split-batch splits an imported model; this module is already planned (loom.parallel = #loom.parallel<tp = 2>): give replicas to the imported model}}
module attributes {loom.model = #loom.model<name = "m", family = "llama", mode = prefill, batch = 6, seq = 8>, loom.parallel = #loom.parallel<tp = 2>} {
  func.func @m(%x: tensor<6x8x64xbf16>) -> tensor<6x8x64xbf16> {
    %n = loom.rms_norm %x : tensor<6x8x64xbf16>
    return %n : tensor<6x8x64xbf16>
  }
}

