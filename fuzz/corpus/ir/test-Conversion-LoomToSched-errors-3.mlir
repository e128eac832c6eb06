

// The chips are laid out for the module's tp; sharding written on the ops
// must say the same: a split ...
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @unsharded_module(%x: tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      // expected-error @+1 {{'loom.linear' op is sharded 2 ways, but the module's tensor parallelism (loom.parallel's tp) is 1; convert-loom-to-sched needs them to agree}}
      %h = loom.linear up %in {loom.split = #loom.split<column, 2>} : tensor<1x8x16xbf16> -> tensor<1x8x8xbf16>
      %g = loom.linear down %h {loom.split = #loom.split<row, 2>} : tensor<1x8x8xbf16> -> tensor<1x8x16xbf16>
      loom.yield %g : tensor<1x8x16xbf16>
    }
    return %a : tensor<1x8x16xbf16>
  }
}

