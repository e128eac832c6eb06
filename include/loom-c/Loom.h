/*===- loom-c/Loom.h - Loom's C API -------------------------------*- C -*-===*\
|*                                                                            *|
|* The mlir-c style surface of Loom: dialect handles for the loom and sched   *|
|* dialects, and registration of every Loom pass and of loom-plan-pipeline,   *|
|* for tools and bindings that speak MLIR's C API.                            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef LOOM_C_LOOM_H
#define LOOM_C_LOOM_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Loom, loom);
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Sched, sched);

/// Inserts every dialect Loom's IR uses (loom, sched, func) into `registry`.
MLIR_CAPI_EXPORTED void loomRegisterAllDialects(MlirDialectRegistry registry);

/// Registers every Loom pass and loom-plan-pipeline with the global pass
/// registry, so that textual pipelines may name them.
MLIR_CAPI_EXPORTED void loomRegisterAllPasses(void);

#ifdef __cplusplus
}
#endif

#endif // LOOM_C_LOOM_H
