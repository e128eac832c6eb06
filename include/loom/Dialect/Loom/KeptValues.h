//===- KeptValues.h - what a gradient reads of the forward pass -*- C++ -*-===//
//
// The forward values a gradient part reads, which the forward pass keeps
// (or a rematerialisation runs again) for it: one walk for a layer's
// backward pass (LayerGradOp::getKeptBytes) and for the gradients outside
// the layers (TrainingStep.h).
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_DIALECT_LOOM_KEPTVALUES_H
#define LOOM_DIALECT_LOOM_KEPTVALUES_H

#include "loom/Dialect/Loom/LoomOps.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace loom {

/// Calls `read` with each forward operand and result `grad` reads (its
/// GradientWork's kept operands and results) and returns the bytes its
/// forward op keeps inside it for it (a materialised softmax, a dropout
/// mask); 0 and no call when `grad` names no forward op.
int64_t forEachForwardValueRead(GradOp grad,
                                llvm::function_ref<void(mlir::Value)> read);

} // namespace loom

#endif // LOOM_DIALECT_LOOM_KEPTVALUES_H
