//===- loom-plan.cpp - the best layout of a model on a TPU v5e topology ---===//
//
// Name a model and a topology; get a plan (tensor parallelism, pipeline
// stages, slices), its per-chip memory, the cost model's prediction and the
// simulator's result side by side. With no layout given (or with --search),
// Loom chooses the plan. The options and what they do are lib/Plan's
// (PlanCommandLine.h).
//
//===----------------------------------------------------------------------===//

#include "loom/InitAll.h"
#include "loom/Plan/PlanCommandLine.h"
#include "loom/Support/CommandLine.h"
#include "loom/Support/SearchMalloc.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  loom::registerPlanCLOptions();
  if (std::string bad = loom::findHelpLikeTypo(argc, argv); !bad.empty()) {
    errs() << "loom-plan: Unknown command line argument '" << bad
           << "'.  Try: 'loom-plan --help'\n";
    return 1;
  }
  cl::HideUnrelatedOptions(loom::planCLCategory());
  cl::ParseCommandLineOptions(
      argc, argv,
      "loom-plan: lay a transformer or DiT out on a TPU v5e topology\n\n"
      "Imports the model, shards attention heads across chips, cuts the "
      "layers into pipeline stages and the sequence into slices, checks "
      "memory, lowers the plan to per-chip programs and simulates them; "
      "prints the plan, the prediction and the simulated result. With no "
      "layout option (--tp, --stages, --data-parallel, --slices), or with "
      "--search, it searches every layout and reports the best.\n");
  Expected<loom::PlanCommand> command = loom::getPlanCommand();
  if (!command) {
    errs() << "loom-plan: " << toString(command.takeError()) << "\n";
    return 1;
  }
  // A search runs again with glibc's malloc set to reuse what one
  // program frees for the next, on huge pages (SearchMalloc.h).
  if (command->search)
    loom::rerunWithSearchMalloc(argv);
  mlir::DialectRegistry registry;
  loom::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  return loom::runPlanCommand(*command, context, outs(), errs());
}
