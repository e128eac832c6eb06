

// A collective belongs to a planned module; its rule holds no batch.
module attributes {loom.model = #loom.model<name = "m", family = "llama", mode = prefill, batch = 6, seq = 8>} {
  func.func @m(%x: tensor<6x8x64xbf16>) -> tensor<6x8x64xbf16> {
    %n = loom.rms_norm %x : tensor<6x8x64xbf16>
    // expected-error @+1 {{cannot split the batch over 3 replicas: the op's sharding rule maps no batch factor to result #0, whose operands carry the batch}}
    %r = loom.all_reduce %n {group = "tp", group_size = 2} : tensor<6x8x64xbf16> -> tensor<6x8x64xbf16>
    return %r : tensor<6x8x64xbf16>
  }
}

