//===- Loom.cpp - Loom's C API --------------------------------------------===//

#include "loom-c/Loom.h"

#include "loom/InitAll.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Loom, loom, loom::LoomDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Sched, sched, loom::sched::SchedDialect)

void loomRegisterAllDialects(MlirDialectRegistry registry) {
  loom::registerAllDialects(*unwrap(registry));
}

void loomRegisterAllPasses(void) { loom::registerAllPasses(); }
