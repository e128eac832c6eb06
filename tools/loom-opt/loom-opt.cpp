//===- loom-opt.cpp - Loom's optimizer driver -----------------------------===//
//
// mlir-opt with Loom's dialects and passes: parses loom IR, runs the passes
// named on the command line and prints the result. A module's target
// travels in its #loom.target, figures and all; loom-set-target puts one on.
//
// The driver is MLIR's MlirOptMain, called on the input buffer rather than
// the file name, so that input nested deeper than MLIR's parser can recurse
// is refused first (loom/Support/NestingLimit.h).
//
//===----------------------------------------------------------------------===//

#include "loom/InitAll.h"
#include "loom/Support/CommandLine.h"
#include "loom/Support/NestingLimit.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cstdio>

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  loom::hidePreloadedLLVMOptions();
  mlir::DialectRegistry registry;
  loom::registerAllDialects(registry);
  loom::registerAllPasses();
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
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

  // What MlirOptMain(argc, argv, input, output, registry) does, with the
  // nesting check between reading the input and parsing it.
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(mlir::MlirOptMain(
        llvm::outs(), llvm::MemoryBuffer::getMemBuffer(""), registry, config));
  if (inputFilename == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                    "interrupt)\n";
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (failed(loom::checkIRNesting(input->getMemBufferRef(), llvm::errs(),
                                  config.inputSplitMarker())))
    return 1;
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
