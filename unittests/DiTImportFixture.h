//===- DiTImportFixture.h - DiT-XL/2 at 256 px on a target ------*- C++ -*-===//
//
// The fixture the sequence-parallel tests share: a context with every
// dialect, and DiT-XL/2 imported at 256 px (16 heads of 72, 256 image
// tokens, a CFG batch of 2) with its target set to a topology.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_UNITTESTS_DITIMPORTFIXTURE_H
#define LOOM_UNITTESTS_DITIMPORTFIXTURE_H

#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Import/ModelImporter.h"
#include "loom/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

namespace loom {

class DiTImportTest : public ::testing::Test {
protected:
  DiTImportTest() : context(registry()) { context.loadAllAvailableDialects(); }
  static mlir::DialectRegistry registry() {
    mlir::DialectRegistry registry;
    registerAllDialects(registry);
    return registry;
  }

  mlir::OwningOpRef<mlir::ModuleOp> import(llvm::StringRef topology) {
    ImportOptions options;
    options.resolution = 256;
    auto module = importModel("dit-xl-2", options, &context);
    EXPECT_TRUE(module);
    (*module)->setAttr(kTargetAttrName,
                       llvm::cantFail(materializeTarget(&context, topology)));
    return module;
  }

  mlir::MLIRContext context;
};

} // namespace loom

#endif // LOOM_UNITTESTS_DITIMPORTFIXTURE_H
