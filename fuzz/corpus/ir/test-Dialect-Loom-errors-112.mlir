

func.func @all_to_all_indivisible(%x: tensor<1x3x8xbf16>) {
  // expected-error @+1 {{'loom.all_to_all' op dimension 1 of size 3 is not divisible by group_size 8}}
  %0 = loom.all_to_all %x {dim = 1, group = "tp", group_size = 8} : tensor<1x3x8xbf16> -> tensor<1x3x8xbf16>
  return
}

//===----------------------------------------------------------------------===//
// Cost figures past 64 bits (CostOpInterface's verifier, kCostLimit = 2^62)
//===----------------------------------------------------------------------===//

