

func.func @gather_wrap(%x: tensor<1x4x8xbf16>) {
  // expected-error @+1 {{'loom.all_gather' op dimension 1 of size 4 times group_size 4611686018427387905 does not fit in 64 bits}}
  %0 = loom.all_gather %x {dim = 1, group = "tp", group_size = 4611686018427387905} : tensor<1x4x8xbf16> -> tensor<1x4x8xbf16>
  return
}

