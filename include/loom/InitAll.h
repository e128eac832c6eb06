//===- InitAll.h - register every Loom dialect and pass ---------*- C++ -*-===//
//
// The one registration surface: Loom's tools and any compiler embedding Loom
// call these instead of naming dialects and passes one by one.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_INITALL_H
#define LOOM_INITALL_H

#include "loom/Conversion/Passes.h"
#include "loom/Dialect/Loom/LoomDialect.h"
#include "loom/Transforms/PlanPipeline.h"
#include "loom/Dialect/Sched/SchedOps.h"
#include "loom/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"

namespace loom {

/// Adds Loom's dialects, and the upstream dialects Loom's IR uses, to
/// `registry`.
inline void registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<loom::LoomDialect, loom::sched::SchedDialect,
                  mlir::func::FuncDialect>();
}

/// Registers Loom's passes with the global pass registry (idempotent).
inline void registerAllPasses() {
  loom::registerLoomPasses();
  loom::registerLoomConversionPasses();
  loom::registerPlanPipeline();
}

} // namespace loom

#endif // LOOM_INITALL_H
