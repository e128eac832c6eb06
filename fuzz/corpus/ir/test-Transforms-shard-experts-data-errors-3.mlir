

// A dense model has no experts to split.
// expected-error @+1 {{an expert-parallel group of its own splits the routed experts of MoE layers; the module has none}}
module attributes {loom.model = #loom.model<name = "dense", family = "llama", mode = prefill, batch = 8, seq = 16>, loom.target = #loom.target<"tpu-v5e", topology = "v5e-8", shape = [2, 4]>} {
  func.func @dense(%x: tensor<8x16x64xbf16>) -> tensor<8x16x64xbf16> {
    %y = loom.layer 0(%x) {kind = "llama"} : (tensor<8x16x64xbf16>) -> tensor<8x16x64xbf16> {
    ^bb0(%h: tensor<8x16x64xbf16>):
      %n = loom.rms_norm %h : tensor<8x16x64xbf16>
      loom.yield %n : tensor<8x16x64xbf16>
    }
    return %y : tensor<8x16x64xbf16>
  }
}
