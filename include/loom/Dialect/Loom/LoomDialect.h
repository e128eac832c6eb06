//===- LoomDialect.h - the loom dialect -------------------------*- C++ -*-===//

#ifndef LOOM_DIALECT_LOOM_LOOMDIALECT_H
#define LOOM_DIALECT_LOOM_LOOMDIALECT_H

#include "mlir/IR/Dialect.h"

#include "loom/Dialect/Loom/LoomDialect.h.inc"

#endif // LOOM_DIALECT_LOOM_LOOMDIALECT_H
