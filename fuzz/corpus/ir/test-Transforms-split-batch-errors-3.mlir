

// Concatenated along dim 0, the samples are joined: no dimension of the
// result is a replica's share.
module attributes {loom.model = #loom.model<name = "m", family = "dit", mode = diffusion, batch = 6, seq = 8, resolution = 32, steps = 1>} {
  func.func @m(%x: tensor<6x8x64xbf16>) -> tensor<12x8x64xbf16> {
    %n = loom.layer_norm %x : tensor<6x8x64xbf16>
    // expected-error @+1 {{cannot split the batch over 3 replicas: the op's sharding rule maps no batch factor to result #0, whose operands carry the batch}}
    %c = loom.concat %n, %n {dim = 0} : (tensor<6x8x64xbf16>, tensor<6x8x64xbf16>) -> tensor<12x8x64xbf16>
    return %c : tensor<12x8x64xbf16>
  }
}

