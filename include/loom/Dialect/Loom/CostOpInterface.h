//===- CostOpInterface.h - the one cost interface ---------------*- C++ -*-===//
//
// Byte counting shared by the cost interface's default methods and by every
// pass that sizes tensors.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_DIALECT_LOOM_COSTOPINTERFACE_H
#define LOOM_DIALECT_LOOM_COSTOPINTERFACE_H

#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/TypeRange.h"

namespace loom {

/// Bytes of one element of a tensor type (or of a scalar type); sub-byte
/// types round up to a byte.
int64_t getElementBytes(mlir::Type type);

/// Bytes of a statically shaped tensor; 0 for anything else.
int64_t getTensorBytes(mlir::Type type);

/// Sum of getTensorBytes over `types`.
int64_t getTensorBytes(mlir::TypeRange types);

/// Number of elements of a statically shaped tensor.
int64_t getNumElements(mlir::Type type);

} // namespace loom

#include "loom/Dialect/Loom/LoomInterfaces.h.inc"

#endif // LOOM_DIALECT_LOOM_COSTOPINTERFACE_H
