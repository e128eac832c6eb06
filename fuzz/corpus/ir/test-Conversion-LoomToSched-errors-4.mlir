

// ... or a local shard's group.
module attributes {loom.parallel = #loom.parallel<tp = 2>, loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @local_shard(%x: tensor<1x8x16xbf16>) -> tensor<1x8x4xbf16> {
    %a = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x4xbf16> {
    ^bb0(%in: tensor<1x8x16xbf16>):
      // expected-error @+1 {{'loom.local_shard' op is sharded 4 ways, but the module's tensor parallelism (loom.parallel's tp) is 2; convert-loom-to-sched needs them to agree}}
      %p = loom.local_shard %in {dim = 2, group = "tp", group_size = 4} : tensor<1x8x16xbf16> -> tensor<1x8x4xbf16>
      loom.yield %p : tensor<1x8x4xbf16>
    }
    return %a : tensor<1x8x4xbf16>
  }
}

