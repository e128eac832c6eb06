//===- ModuleTarget.h - the target a module is planned for ------*- C++ -*-===//

#ifndef LOOM_DIALECT_LOOM_MODULETARGET_H
#define LOOM_DIALECT_LOOM_MODULETARGET_H

#include "loom/Dialect/Loom/LoomOps.h"

#include "mlir/IR/BuiltinOps.h"

namespace loom {

/// The module's `loom.target`; when it has none, emits an error at the
/// module that says how to set one, mentioning `passName`.
mlir::FailureOr<TargetAttr> requireTarget(mlir::ModuleOp module,
                                          llvm::StringRef passName);

/// The #loom.target for `topology` ("v5e-16") of the target file at
/// `targetFile`, or of the bundled targets when `targetFile` is empty.
/// Errors name the file's JSON path or list the valid topologies.
llvm::Expected<TargetAttr> materializeTarget(mlir::MLIRContext *context,
                                             llvm::StringRef topology,
                                             llvm::StringRef targetFile = "");

} // namespace loom

#endif // LOOM_DIALECT_LOOM_MODULETARGET_H
