// loom-shard-experts data=true runs on a 1-D tensor-parallel module (as
// loom-shard-heads leaves one); Ulysses' sp would take the place beside tp
// it needs. In the MLIR syntax the layout is written by hand here.
// RUN: loom-opt %s -split-input-file -loom-shard-experts="ep=2 data=true" -verify-diagnostics

// expected-error @+1 {{an expert-parallel group of its own (data) sits beside a 1-D tensor-parallel group, which this module's is not (#loom.parallel<tp = 2, sp = 2>)}}
module attributes {loom.model = #loom.model<name = "moe", family = "mixtral", mode = prefill, batch = 8, seq = 16>, loom.parallel = #loom.parallel<tp = 2, sp = 2>, loom.target = #loom.target<"tpu-v5e", topology = "v5e-8", shape = [2, 4]>} {
}

