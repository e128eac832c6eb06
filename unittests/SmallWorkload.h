//===- SmallWorkload.h - a bundled model at a small workload ----*- C++ -*-===//
//
// Tests that go over every bundled model import each at a small workload of
// its kind: a prompt of 128 tokens, a 256 px image, or a 256 px video of 5
// frames, batch 2.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_UNITTESTS_SMALLWORKLOAD_H
#define LOOM_UNITTESTS_SMALLWORKLOAD_H

#include "loom/Import/ModelImporter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

namespace loom::test {

/// `model` imported at the small workload of its kind; null when none
/// imports (the kinds it is not are refused quietly).
inline mlir::OwningOpRef<mlir::ModuleOp>
importSmallWorkload(llvm::StringRef model, mlir::MLIRContext &context) {
  ImportOptions llm, image, video;
  llm.batch = image.batch = video.batch = 2;
  llm.seqLen = 128;
  image.resolution = 256;
  video.height = video.width = 256;
  video.frames = 5;
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  mlir::OwningOpRef<mlir::ModuleOp> module;
  for (const ImportOptions &options : {llm, image, video})
    if (!module)
      module = importModel(model, options, &context);
  return module;
}

} // namespace loom::test

#endif // LOOM_UNITTESTS_SMALLWORKLOAD_H
