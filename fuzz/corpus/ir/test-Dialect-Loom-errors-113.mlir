

// 2 * 2^40 rows * 2^20 * 2^20 FLOPs: the product saturates instead of wrapping.
func.func @cost_saturates(%x: tensor<1048576x1048576x1048576xbf16>) {
  // expected-error @+1 {{'loom.linear' op needs 2^63 or more FLOPs, past Loom's 64-bit cost figures (at most 2^62 for one op); use a smaller batch, sequence or width}}
  %0 = loom.linear o %x : tensor<1048576x1048576x1048576xbf16> -> tensor<1048576x1048576x1048576xbf16>
  return
}

