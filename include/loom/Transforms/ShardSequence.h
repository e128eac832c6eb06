//===- ShardSequence.h - sequence (context) parallelism ---------*- C++ -*-===//
//
// The C++ entry point of loom-shard-sequence.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_TRANSFORMS_SHARDSEQUENCE_H
#define LOOM_TRANSFORMS_SHARDSEQUENCE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace loom {

/// Splits the sequence of every layer of `module` (after loom-shard-heads,
/// before loom-partition-layers) over `sp` chips per tensor-parallel rank.
/// `mode` "ulysses" (DeepSpeed-Ulysses): all-to-alls over the heads before
/// and after each self-attention and MMDiT joint attention (both streams);
/// "ring" (ring attention): each self-attention becomes a
/// loom.ring_attention that passes K/V blocks around the sp chips, with no
/// condition on the heads (causal attention striped over the ring). Emits a diagnostic naming the valid degrees and
/// fails without changing the module when `sp` does not divide the
/// sequence (Ulysses: and every self-attention's local heads and KV heads),
/// or the topology's chips with tp.
mlir::LogicalResult shardSequence(mlir::ModuleOp module, int64_t sp,
                                  llvm::StringRef mode = "ulysses");

/// The sequence-parallel degrees from 1 to `maxDegree` that `module` (as
/// loom-shard-heads left it) allows in `mode`: those dividing the sequence
/// (Ulysses: and every self-attention's local heads and KV heads); {1} when the model has ops
/// Ulysses does not split (mixtures of experts, latent attention, decode).
llvm::SmallVector<int64_t> validSequenceParallelDegrees(mlir::ModuleOp module,
                                                        int64_t maxDegree,
                                                        llvm::StringRef mode = "ulysses");

} // namespace loom

#endif // LOOM_TRANSFORMS_SHARDSEQUENCE_H
