

// A reshape that folds the batch into the sequence keeps no share in
// dim 0 of a size the replicas divide.
module attributes {loom.model = #loom.model<name = "m", family = "llama", mode = prefill, batch = 6, seq = 8>} {
  func.func @m(%x: tensor<6x8x64xbf16>) -> tensor<1x48x64xbf16> {
    %n = loom.rms_norm %x : tensor<6x8x64xbf16>
    // expected-error @+1 {{cannot split the batch of 1 in dimension 0 of result #0 over 3 replicas (each runs an equal share)}}
    %r = loom.reshape %n : tensor<6x8x64xbf16> -> tensor<1x48x64xbf16>
    return %r : tensor<1x48x64xbf16>
  }
}

