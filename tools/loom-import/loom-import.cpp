//===- loom-import.cpp - model configs to loom IR -------------------------===//
//
// Reads a Hugging Face transformers or diffusers config.json, or a bundled
// model name, and writes the loom IR of one forward pass.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Import/ModelImporter.h"
#include "loom/Import/WorkloadOptions.h"
#include "loom/Support/CommandLine.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace llvm;

static cl::OptionCategory category("loom-import options");

static cl::opt<std::string> input(cl::Positional, cl::value_desc("model"),
                                  cl::desc("<bundled model name | config.json>"),
                                  cl::cat(category));
static cl::opt<std::string> output("o", cl::desc("Output file (default: stdout)"),
                                   cl::value_desc("file"), cl::init("-"),
                                   cl::cat(category));
static cl::opt<std::string>
    targetTopology("target", cl::value_desc("topology"), cl::cat(category),
                   cl::desc("Record the target topology on the module (e.g. "
                            "v5e-16), with its figures: loom.target = "
                            "#loom.target<...>"));
static cl::opt<std::string>
    targetFile("target-file", cl::value_desc("json"), cl::cat(category),
               cl::desc("With --target: the target file (format: "
                        "targets/README.md) whose topology it names"));
static cl::opt<bool> list("list-models", cl::desc("List the bundled models and exit"),
                          cl::cat(category));
static loom::WorkloadOptions workload(category);

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "loom-import: model config to loom IR\n\n"
      "Reads a Hugging Face transformers config.json (llama, gpt2), a "
      "diffusers transformer config.json (DiT, PixArt-alpha, SD3, Flux) or "
      "the name of a bundled model, and writes the loom IR of one forward "
      "pass.\n");

  if (list) {
    for (const loom::BundledModel &model : loom::getBundledModels())
      outs() << model.name << "\n";
    return 0;
  }
  if (input.empty()) {
    errs() << "loom-import: no model given (a bundled name or a "
              "config.json; --list-models lists the bundled ones)\n";
    return 1;
  }

  loom::ImportOptions options;
  if (std::string bad = workload.get(options); !bad.empty()) {
    errs() << "loom-import: " << bad << "\n";
    return 1;
  }

  mlir::MLIRContext context;
  // Prints errors as file:line:col with the offending line of the config.
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      loom::importModel(input, options, &context);
  if (!module)
    return 1;
  if (!targetFile.empty() && targetTopology.empty()) {
    errs() << "loom-import: --target-file needs --target (the topology)\n";
    return 1;
  }
  if (!targetTopology.empty()) {
    Expected<loom::TargetAttr> target =
        loom::materializeTarget(&context, targetTopology, targetFile);
    if (!target) {
      errs() << "loom-import: " << toString(target.takeError()) << "\n";
      return 1;
    }
    (*module)->setAttr(loom::kTargetAttrName, *target);
  }

  std::string error;
  std::unique_ptr<ToolOutputFile> file = mlir::openOutputFile(output, &error);
  if (!file) {
    errs() << "loom-import: " << error << "\n";
    return 1;
  }
  module->print(file->os());
  file->os() << "\n";
  file->keep();
  return 0;
}
