//===- ModelCost.h - cost totals of layers and models -----------*- C++ -*-===//
//
// Sums of the cost interface over the ops of a model, grouped the way a
// reader and the planners look at a model: the ops before the blocks, each
// `loom.layer`, and the ops after them.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_DIALECT_LOOM_MODELCOST_H
#define LOOM_DIALECT_LOOM_MODELCOST_H

#include "loom/Dialect/Loom/CostOpInterface.h"
#include "loom/Hardware/CostModel.h"

#include "mlir/IR/Block.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace loom {

/// What the cost interface says, summed over some ops.
struct CostTotals {
  int64_t flops = 0;
  int64_t parameters = 0;
  int64_t parameterBytes = 0;
  int64_t bytesRead = 0;
  int64_t bytesWritten = 0;
  int64_t kvCacheBytes = 0;

  void add(CostOpInterface op);
  CostTotals &operator+=(const CostTotals &other);
};

/// One row of a model's cost table.
struct PartCost {
  enum class Part { Prologue, Layer, Epilogue };
  Part part;
  int64_t layerIndex = -1; // for Part::Layer
  std::string kind;        // the layer's kind, if any
  CostTotals cost;
};

/// The rows of the model whose body is `body`: the ops before the first
/// `loom.layer`, each layer in order, and the ops after the last layer (ops
/// between layers count towards the epilogue row). Empty prologue and
/// epilogue rows are omitted.
llvm::SmallVector<PartCost> collectPartCosts(mlir::Block &body);

/// The sum of all rows.
CostTotals sumPartCosts(llvm::ArrayRef<PartCost> parts);

/// Estimated seconds for `op` on one chip of the model's target: the
/// roofline of its MXU-padded FLOPs and its HBM bytes, or for a collective
/// its time on the group's torus axes `groupAxes` (none: free). A
/// loom.layer is the sum of its ops, run one after another.
double estimateTime(const CostModel &model, CostOpInterface op,
                    llvm::ArrayRef<GroupAxis> groupAxes = {});

} // namespace loom

#endif // LOOM_DIALECT_LOOM_MODELCOST_H
