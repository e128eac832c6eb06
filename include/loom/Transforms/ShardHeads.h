//===- ShardHeads.h - head-wise tensor parallelism --------------*- C++ -*-===//
//
// The C++ entry point of loom-shard-heads, for compilers that embed Loom
// without its command line.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_TRANSFORMS_SHARDHEADS_H
#define LOOM_TRANSFORMS_SHARDHEADS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include "loom/Hardware/TargetDesc.h"

#include <string>

namespace loom {

struct HeadShardingOptions {
  /// Tensor-parallel degree: chips in each group.
  int64_t tp = 1;
  /// Megatron sequence parallelism (Korthikanti et al. 2022): activations
  /// between the blocks' matmuls are split along the sequence, and each
  /// all-reduce becomes a reduce-scatter plus an all-gather.
  bool sequenceParallel = false;
  /// 2-D weight-stationary (Pope et al. 2023): the group is a tpX x
  /// (tp / tpX) block of the torus, d_model split over its tp_x sub-groups
  /// and heads and d_ff over its tp_y ones. 1: Megatron's 1-D layout.
  int64_t tpX = 1;
  /// Weight-gathered (Pope et al. 2023, section 3.2.3): the tp chips split
  /// the batch and run whole layers, each layer's weights (stored split tp
  /// ways) all-gathered before it (loom.gather_weights).
  bool weightGathered = false;
  /// With more chips than KV heads, each KV head's cache split by batch
  /// over this many of the tp / kv_heads chips computing the head (the JAX
  /// scaling book, Part 7, "Sharding the KV cache"), each running the
  /// head's attention for its sequences between two all-to-alls; 1: every
  /// one of them holds the whole cache.
  int64_t kvBatch = 1;
};

/// Rewrites `module` into the per-chip (SPMD) view of `options.tp`-way
/// head-wise tensor parallelism. Emits a diagnostic at the op that cannot
/// be split, naming the numbers and the valid degrees, and fails without
/// changing the module.
mlir::LogicalResult shardHeads(mlir::ModuleOp module,
                               const HeadShardingOptions &options);

/// The tensor-parallel degrees from 1 to `maxDegree` that `module` can be
/// split into.
llvm::SmallVector<int64_t> validTensorParallelDegrees(mlir::ModuleOp module,
                                                      int64_t maxDegree,
                                                      bool sequenceParallel);

/// The fewest KV heads of `module`'s causal attentions (0: none): with more
/// tensor-parallel chips than this, kv-batch can split their caches.
int64_t fewestKvHeads(mlir::ModuleOp module);
/// The chips of a `tp` group that hold each of `kvHeads` KV heads: tp /
/// kv_heads with more chips than heads (each head's cache repeated on
/// them unless kv-batch splits it), else 1.
inline int64_t kvHeadHolders(int64_t kvHeads, int64_t tp) {
  return kvHeads > 0 && tp > kvHeads && tp % kvHeads == 0 ? tp / kvHeads : 1;
}

/// The rows x of the 2-D (tp-x) blocks of `tp` chips, x x (tp / x) with
/// both sides at least 2, that tile `topology` and split `module` (with
/// sequence parallelism, its sequence over tp / x as well).
llvm::SmallVector<int64_t> validTensorRows(mlir::ModuleOp module,
                                           const TopologyDesc &topology,
                                           int64_t tp,
                                           bool sequenceParallel = false);

/// Splits the batch `parts` ways in the model functions `funcs` of
/// `module`: dim 0 of every tensor (arguments, results, block arguments),
/// except the values `keep` holds (a mixture of experts' dispatch buffers),
/// and #loom.model's batch. What one chip runs when its group shares the
/// batch (weight-gathered's tp chips; the expert-parallel group of its own).
void splitBatch(mlir::ModuleOp module, llvm::ArrayRef<mlir::func::FuncOp> funcs,
                int64_t parts,
                llvm::function_ref<bool(mlir::Value)> keep = nullptr);

} // namespace loom

#endif // LOOM_TRANSFORMS_SHARDHEADS_H
