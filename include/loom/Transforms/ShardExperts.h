//===- ShardExperts.h - expert parallelism ----------------------*- C++ -*-===//
//
// The C++ entry point of loom-shard-experts (issue 17).
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
mlir::LogicalResult shardExperts(mlir::ModuleOp module, int64_t ep);

/// The expert-parallel degrees `module` (sharded `tp` ways) allows: the
/// divisors of tp that divide every MoE layer's experts.
llvm::SmallVector<int64_t> validExpertParallelDegrees(mlir::ModuleOp module,
                                                      int64_t tp);

} // namespace loom

#endif // LOOM_TRANSFORMS_SHARDEXPERTS_H
