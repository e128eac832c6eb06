// A training step the lowering cannot read: made by hand, not in the order
// loom-derive-training-step builds.
// RUN: loom-opt %s -split-input-file -verify-diagnostics --convert-loom-to-sched

// A layer without its backward pass.
module attributes {loom.target = #loom.target<"tpu-v5e", topology = "v5e-1", shape = [1, 1], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.97e+14, peak_int8 = 3.94e+14, mxu_tile = 128, mxu_efficiency = 0.9568, hbm_capacity = 1.6e+10, hbm_bandwidth = 8.192e+11, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 4.5e+10, hop_latency = 1.0e-06>>} {
  // expected-error @+1 {{convert-loom-to-sched: a training step has one loom.layer_grad per loom.layer, in reverse order of the layers (as loom-derive-training-step builds them); this one has 0 for 1 layers, or another order}}
  func.func @step(%x: tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    %y = loom.layer 0 (%x) : (tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
    ^bb0(%in: tensor<1x8x64xbf16>):
      %h = loom.linear up %in : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      loom.yield %h : tensor<1x8x64xbf16>
    }
    %loss = loom.loss cross_entropy %y : tensor<1x8x64xbf16> -> tensor<f32>
    loom.optimizer_update {grad_type = bf16, layer = 0 : i64, master_type = f32, optimizer = #loom<optimizer adamw>, parameters = 4096 : i64, state_elements = 8192 : i64, state_type = f32, vector_ops_per_parameter = 16 : i64, weight_type = bf16}
    return %y : tensor<1x8x64xbf16>
  }
}

