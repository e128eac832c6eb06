// The IR contract's attributes: every loom.* name is declared once
// (loom/Dialect/Loom/LoomAttributes.h), typed, and checked where it sits
// and against the graph it describes.
// RUN: loom-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK: module attributes {loom.model = #loom.model<name = "tiny", family = "llama", mode = prefill, batch = 2, seq = 8>, loom.parallel = #loom.parallel<tp = 2, dp = 3, sequence_parallel = true>}
module attributes {loom.model = #loom.model<name = "tiny", family = "llama", mode = prefill, batch = 2, seq = 8>, loom.parallel = #loom.parallel<tp = 2, dp = 3, sequence_parallel = true>} {
  func.func @tiny(%ids: tensor<2x8xi32> {loom.name = "input_ids"}, %q: tensor<2x8x64xbf16>) {
    %0 = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 16, causal} : tensor<2x8x64xbf16>, tensor<2x8x64xbf16> -> tensor<2x8x64xbf16>
    return
  }
}

