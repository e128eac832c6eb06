//===- CostOpFixture.h - parse one op and read its costs --------*- C++ -*-===//
//
// The fixture the cost tests share: parse a function body with the loom
// dialect loaded and return its first op of a given name as a
// CostOpInterface.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_UNITTESTS_COSTOPFIXTURE_H
#define LOOM_UNITTESTS_COSTOPFIXTURE_H

#include "loom/Dialect/Loom/LoomOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

namespace loom {

class CostOpFixture : public ::testing::Test {
protected:
  CostOpFixture() { context.loadDialect<LoomDialect, mlir::func::FuncDialect>(); }

  /// Parses `body` inside a function and returns the first op named `name`.
  CostOpInterface parseOp(llvm::StringRef body, llvm::StringRef name) {
    std::string text = ("func.func @f" + body).str();
    module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
    EXPECT_TRUE(module) << text;
    CostOpInterface found;
    if (module)
      module->walk([&](CostOpInterface op) {
        if (!found && op->getName().getStringRef() == name)
          found = op;
      });
    EXPECT_TRUE(found) << name.str();
    return found;
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

} // namespace loom

#endif // LOOM_UNITTESTS_COSTOPFIXTURE_H
