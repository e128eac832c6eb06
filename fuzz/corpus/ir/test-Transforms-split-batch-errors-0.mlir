// What loom-split-batch refuses, each at its place: a replica count that
// does not divide the batch, a planned module, a module without the
// model's batch, and an op whose rule maps no batch to a result its split
// operands feed (a concatenation of samples, a foreign op).
// RUN: loom-opt %s -split-input-file -loom-split-batch=replicas=3 -verify-diagnostics

// expected-error @+1 {{replicas = 3 does not divide the batch of 4 (each data-parallel replica runs an equal share)}}
module attributes {loom.model = #loom.model<name = "m", family = "llama", mode = prefill, batch = 4, seq = 8>} {
  func.func @m(%x: tensor<4x8x64xbf16>) -> tensor<4x8x64xbf16> {
    %n = loom.rms_norm %x : tensor<4x8x64xbf16>
    return %n : tensor<4x8x64xbf16>
  }
}

