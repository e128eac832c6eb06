//===- SchedOps.h - the sched dialect ---------------------------*- C++ -*-===//

#ifndef LOOM_DIALECT_SCHED_SCHEDOPS_H
#define LOOM_DIALECT_SCHED_SCHEDOPS_H

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Support/Enums.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"

#include "loom/Dialect/Sched/SchedDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "loom/Dialect/Sched/SchedAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "loom/Dialect/Sched/SchedTypes.h.inc"

#define GET_OP_CLASSES
#include "loom/Dialect/Sched/SchedOps.h.inc"

#endif // LOOM_DIALECT_SCHED_SCHEDOPS_H
