//===- ModuleTarget.h - the target a module is planned for ------*- C++ -*-===//

#ifndef LOOM_DIALECT_LOOM_MODULETARGET_H
#define LOOM_DIALECT_LOOM_MODULETARGET_H

#include "loom/Dialect/Loom/LoomOps.h"

#include "mlir/IR/BuiltinOps.h"

namespace loom {

/// The module's `loom.target`. When it has none and `slice` names a known
/// slice (e.g. "v5e-16"), sets it from that slice. Otherwise emits an error
/// at the module that says how to give one, mentioning `passName`.
mlir::FailureOr<TargetAttr> getOrSetModuleTarget(mlir::ModuleOp module,
                                                 llvm::StringRef slice,
                                                 llvm::StringRef passName);

} // namespace loom

#endif // LOOM_DIALECT_LOOM_MODULETARGET_H
