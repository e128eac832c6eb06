// RUN: loom-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the mixture-of-experts ops and latent attention, one
// per failure mode.

func.func @route_top_k(%h: tensor<1x16x64xbf16>) {
  // expected-error @+1 {{'loom.moe_route' op top_k 9 exceeds the 8 experts}}
  %b = loom.moe_route %h {experts = 8, top_k = 9} : tensor<1x16x64xbf16> -> tensor<1x144x64xbf16>
  return
}

