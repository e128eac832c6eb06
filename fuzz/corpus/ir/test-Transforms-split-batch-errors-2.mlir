

// expected-error @+1 {{loom-split-batch needs the model's batch: the module has no loom.model}}
module {
  func.func @m(%x: tensor<6x8x64xbf16>) -> tensor<6x8x64xbf16> {
    %n = loom.rms_norm %x : tensor<6x8x64xbf16>
    return %n : tensor<6x8x64xbf16>
  }
}

