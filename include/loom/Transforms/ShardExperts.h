//===- ShardExperts.h - expert parallelism ----------------------*- C++ -*-===//
//
// The C++ entry point of loom-shard-experts.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_TRANSFORMS_SHARDEXPERTS_H
#define LOOM_TRANSFORMS_SHARDEXPERTS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace loom {

/// Splits the routed experts of every mixture-of-experts layer of `module`
/// (already sharded by loom-shard-heads) over `ep` chips of its
/// tensor-parallel group, with an all-to-all dispatch and combine. Emits a
/// diagnostic naming the valid degrees and fails without changing the
/// module when `ep` does not divide the experts or the group.
/// With `data`, the ep chips are a group of their own beside the
/// tensor-parallel group instead (a stage holds tp x ep chips): they split
/// the batch for attention and the dense layers, and the experts of each
/// MoE layer, whose dispatch and combine all-to-alls run over that group
/// alone.
mlir::LogicalResult shardExperts(mlir::ModuleOp module, int64_t ep,
                                 bool data = false);

/// The expert-parallel degrees `module` (sharded `tp` ways) allows: the
/// divisors of tp that divide every MoE layer's experts.
llvm::SmallVector<int64_t> validExpertParallelDegrees(mlir::ModuleOp module,
                                                      int64_t tp);

/// The degrees of an expert-parallel group of its own (`data`) that
/// `module` (sharded `tp` ways) allows: from 2 up, dividing every MoE
/// layer's experts and the batch, with tp x ep chips tiling `chips`.
llvm::SmallVector<int64_t> validExpertDataDegrees(mlir::ModuleOp module,
                                                  int64_t tp, int64_t chips);

} // namespace loom

#endif // LOOM_TRANSFORMS_SHARDEXPERTS_H
