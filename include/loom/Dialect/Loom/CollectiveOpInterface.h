//===- CollectiveOpInterface.h - collectives --------------------*- C++ -*-===//

#ifndef LOOM_DIALECT_LOOM_COLLECTIVEOPINTERFACE_H
#define LOOM_DIALECT_LOOM_COLLECTIVEOPINTERFACE_H

#include "loom/Support/Enums.h"

#include "mlir/IR/OpDefinition.h"

#include "loom/Dialect/Loom/CollectiveOpInterface.h.inc"

#endif // LOOM_DIALECT_LOOM_COLLECTIVEOPINTERFACE_H
