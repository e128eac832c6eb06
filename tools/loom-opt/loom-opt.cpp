//===- loom-opt.cpp - Loom's optimizer driver -----------------------------===//
//
// mlir-opt with Loom's dialects and passes: parses loom IR, runs the passes
// named on the command line and prints the result.
//
//===----------------------------------------------------------------------===//

#include "loom/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  loom::registerAllDialects(registry);
  loom::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Loom optimizer: partitions transformer and DiT graphs\n",
      registry));
}
