//===- LoomEnums.h - the loom dialect's enums -------------------*- C++ -*-===//
//
// The enums of the loom dialect's attributes and ops (LinearRole,
// ModelMode, GradientPart, Optimizer, ...), for headers that need them
// before the ops are declared.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_DIALECT_LOOM_LOOMENUMS_H
#define LOOM_DIALECT_LOOM_LOOMENUMS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMapInfo.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>

#include "loom/Dialect/Loom/LoomEnums.h.inc"

#endif // LOOM_DIALECT_LOOM_LOOMENUMS_H
