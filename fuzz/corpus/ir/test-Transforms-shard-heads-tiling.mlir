// RUN: loom-opt %s -verify-diagnostics --loom-shard-heads=tp=3

// Groups of tp chips must tile the topology, or no later pass can lay the
// plan out: 6 heads split 3 ways, but 3 does not divide 4 chips.
// expected-error @+1 {{tp = 3 does not divide the 4 chips of v5e-4, which tensor-parallel groups must tile; valid degrees: 1, 2}}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  func.func @f(%x: tensor<1x8x96xbf16>) -> tensor<1x8x96xbf16> {
    %0 = loom.attention %x, %x, %x {heads = 6, kv_heads = 6, head_dim = 16} : tensor<1x8x96xbf16>, tensor<1x8x96xbf16> -> tensor<1x8x96xbf16>
    return %0 : tensor<1x8x96xbf16>
  }
}
