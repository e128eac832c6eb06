//===- SplitBatch.h - one data-parallel replica's share ---------*- C++ -*-===//
//
// The C++ entry point of loom-split-batch.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_TRANSFORMS_SPLITBATCH_H
#define LOOM_TRANSFORMS_SPLITBATCH_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace loom {

/// Rewrites the imported (not yet planned) `module` into what one of
/// `replicas` data-parallel replicas runs: every tensor dimension that
/// holds the batch (by each op's sharding rule, ShardingRuleOpInterface::
/// splitBatch) divided by `replicas`, the figures ops derive from it (a
/// mixture of experts' routed tokens and dispatch rows), the functions'
/// types and #loom.model's batch. The result prints as the model imported
/// with batch / replicas. Fails with a located diagnostic when `replicas`
/// is below 1 or does not divide the batch, when the module is already
/// planned, or at the first op that cannot be split (the module is then
/// partly rewritten).
mlir::LogicalResult splitReplicaBatch(mlir::ModuleOp module, int64_t replicas);

} // namespace loom

#endif // LOOM_TRANSFORMS_SPLITBATCH_H
