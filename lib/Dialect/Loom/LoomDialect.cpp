//===- LoomDialect.cpp - the loom dialect ---------------------------------===//

#include "loom/Dialect/Loom/LoomDialect.h"
#include "loom/Dialect/Loom/LoomOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace loom;

#include "loom/Dialect/Loom/LoomDialect.cpp.inc"
#include "loom/Dialect/Loom/LoomEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "loom/Dialect/Loom/LoomAttrs.cpp.inc"

void LoomDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "loom/Dialect/Loom/LoomOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "loom/Dialect/Loom/LoomAttrs.cpp.inc"
      >();
}
