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

// -----

// expected-error @+1 {{loom-split-batch splits an imported model; this module is already planned (loom.parallel = #loom.parallel<tp = 2>): give replicas to the imported model}}
module attributes {loom.model = #loom.model<name = "m", family = "llama", mode = prefill, batch = 6, seq = 8>, loom.parallel = #loom.parallel<tp = 2>} {
  func.func @m(%x: tensor<6x8x64xbf16>) -> tensor<6x8x64xbf16> {
    %n = loom.rms_norm %x : tensor<6x8x64xbf16>
    return %n : tensor<6x8x64xbf16>
  }
}

// -----

// expected-error @+1 {{loom-split-batch needs the model's batch: the module has no loom.model}}
module {
  func.func @m(%x: tensor<6x8x64xbf16>) -> tensor<6x8x64xbf16> {
    %n = loom.rms_norm %x : tensor<6x8x64xbf16>
    return %n : tensor<6x8x64xbf16>
  }
}

// -----

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

// -----

// A collective belongs to a planned module; its rule holds no batch.
module attributes {loom.model = #loom.model<name = "m", family = "llama", mode = prefill, batch = 6, seq = 8>} {
  func.func @m(%x: tensor<6x8x64xbf16>) -> tensor<6x8x64xbf16> {
    %n = loom.rms_norm %x : tensor<6x8x64xbf16>
    // expected-error @+1 {{cannot split the batch over 3 replicas: the op's sharding rule maps no batch factor to result #0, whose operands carry the batch}}
    %r = loom.all_reduce %n {group = "tp", group_size = 2} : tensor<6x8x64xbf16> -> tensor<6x8x64xbf16>
    return %r : tensor<6x8x64xbf16>
  }
}

// -----

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

// -----

// Experts that read anything but their router's buffer.
module attributes {loom.model = #loom.model<name = "m", family = "mixtral", mode = prefill, batch = 6, seq = 8>} {
  func.func @m(%x: tensor<6x8x64xbf16>, %buf: tensor<1x96x64xbf16>) -> tensor<1x96x64xbf16> {
    // expected-error @+1 {{cannot split the batch of experts that do not read a loom.moe_route's buffer directly}}
    %e = loom.moe_experts %buf {expert_inter = 32, experts = 8, tokens = 48, top_k = 2} : tensor<1x96x64xbf16>
    return %e : tensor<1x96x64xbf16>
  }
}
