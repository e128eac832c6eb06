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

//===----------------------------------------------------------------------===//
// TargetAttr
//===----------------------------------------------------------------------===//

LogicalResult
TargetAttr::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                   StringRef name, ArrayRef<int64_t> shape) {
  const TargetDesc *target = lookupTarget(name);
  if (!target)
    return emitError() << "unknown target '" << name
                       << "' (known: " << listTargets()
                       << "; --target-file loads another)";
  if (!target->findSlice(shape)) {
    std::string dims;
    llvm::raw_string_ostream os(dims);
    llvm::interleave(shape, os, "x");
    return emitError() << "target '" << name << "' has no " << dims
                       << " slice; valid slices: " << target->listSlices();
  }
  return success();
}

const TargetDesc *TargetAttr::getTargetDesc() const {
  return lookupTarget(getName());
}

const SliceDesc *TargetAttr::getSlice() const {
  const TargetDesc *target = getTargetDesc();
  return target ? target->findSlice(getShape()) : nullptr;
}

//===----------------------------------------------------------------------===//
// SplitAttr
//===----------------------------------------------------------------------===//

LogicalResult
SplitAttr::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                  SplitKind kind, int64_t parts, int64_t replicas) {
  if (parts < 1 || replicas < 1)
    return emitError() << "split parts and replicas must be positive, got "
                       << parts << " and " << replicas;
  return success();
}
