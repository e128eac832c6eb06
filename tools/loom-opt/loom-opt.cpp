//===- loom-opt.cpp - Loom's optimizer driver -----------------------------===//
//
// mlir-opt with Loom's dialects and passes: parses loom IR, runs the passes
// named on the command line and prints the result. A module's target
// travels in its #loom.target, figures and all; loom-set-target puts one on.
//
//===----------------------------------------------------------------------===//

#include "loom/InitAll.h"
#include "loom/Support/CommandLine.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"

int main(int argc, char **argv) {
  loom::hidePreloadedLLVMOptions();
  mlir::DialectRegistry registry;
  loom::registerAllDialects(registry);
  loom::registerAllPasses();
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "Loom optimizer: partitions transformer and DiT graphs\n",
      registry);
  // Loom's remarks name the layer or stage they are about; a dump of the op
  // under each (MLIR's default) buries them. --mlir-print-op-on-diagnostic
  // brings it back.
  auto &options = llvm::cl::getRegisteredOptions();
  auto *printOp = static_cast<llvm::cl::opt<bool> *>(
      options.lookup("mlir-print-op-on-diagnostic"));
  if (printOp && printOp->getNumOccurrences() == 0)
    printOp->setValue(false);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, input, output, registry));
}
