

// Experts that read anything but their router's buffer.
module attributes {loom.model = #loom.model<name = "m", family = "mixtral", mode = prefill, batch = 6, seq = 8>} {
  func.func @m(%x: tensor<6x8x64xbf16>, %buf: tensor<1x96x64xbf16>) -> tensor<1x96x64xbf16> {
    // expected-error @+1 {{cannot split the batch of experts that do not read a loom.moe_route's buffer directly}}
    %e = loom.moe_experts %buf {expert_inter = 32, experts = 8, tokens = 48, top_k = 2} : tensor<1x96x64xbf16>
    return %e : tensor<1x96x64xbf16>
  }
}
