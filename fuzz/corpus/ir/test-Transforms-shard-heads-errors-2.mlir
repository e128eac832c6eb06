

// An MLP 102 wide does not split four ways.
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>} {
  func.func @ffn(%x: tensor<1x8x64xbf16>) -> tensor<1x8x102xbf16> {
    // expected-error @+1 {{cannot split 4 ways: output width 102 of this gate projection is not divisible by tp = 4; valid tensor-parallel degrees on v5e-16: 1, 2}}
    %g = loom.linear gate %x : tensor<1x8x64xbf16> -> tensor<1x8x102xbf16>
    return %g : tensor<1x8x102xbf16>
  }
}

