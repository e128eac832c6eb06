//===- LayerBody.h - what loom.layer and loom.layer_grad share --*- C++ -*-===//

#ifndef LOOM_LIB_DIALECT_LOOM_LAYERBODY_H
#define LOOM_LIB_DIALECT_LOOM_LAYERBODY_H

#include "mlir/IR/Block.h"
#include "mlir/IR/Operation.h"

namespace loom {

/// Checks a loom.layer's or loom.layer_grad's body against the op: one
/// argument per input, of its type, and a loom.yield of its result types.
mlir::LogicalResult verifyLayerBody(mlir::Operation *layer, mlir::Block &body);

} // namespace loom

#endif // LOOM_LIB_DIALECT_LOOM_LAYERBODY_H
