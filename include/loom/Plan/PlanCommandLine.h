//===- PlanCommandLine.h - loom-plan's options, as a library ----*- C++ -*-===//
//
// loom-plan's command line, declared once here as CIRCT's firtool keeps
// its options in its library (registerFirtoolCLOptions): the layout's
// options come from layoutDimensions(), the workload's from
// WorkloadOptions, the rest (model, target, outputs, search) are declared
// in PlanCommandLine.cpp. A tool registers them with one call, parses, and
// hands the checked command to runPlanCommand.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PLAN_PLANCOMMANDLINE_H
#define LOOM_PLAN_PLANCOMMANDLINE_H

#include "loom/Plan/Emit.h"
#include "loom/Plan/PlanFile.h"
#include "loom/Plan/Planner.h"
#include "loom/Sim/TraceOptions.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace loom {

/// Registers loom-plan's options in their category (planCLCategory()).
/// Call once, before parsing the command line.
void registerPlanCLOptions();
llvm::cl::OptionCategory &planCLCategory();

/// What the parsed options ask for, checked against each other.
struct PlanCommand {
  PlanRequest request;
  /// Search the layouts (none given, or --search).
  bool search = false;
  PlanOptions options;
  /// --plan: the plan file replayed.
  std::optional<SavedPlan> saved;
  bool json = false;
  std::string savePlan, traceFile, svgFile, htmlFile, emitFile;
  std::optional<Runtime> runtime;
  sim::TraceFilter traceFilter;
};

/// The command the parsed options give, or the message that says which
/// option is wrong ("--tp must be at least 1, got 0").
llvm::Expected<PlanCommand> getPlanCommand();

/// Plans (or searches), prints the report to `out` and writes the files
/// the command names; errors go to `err`. The tool's exit code.
int runPlanCommand(const PlanCommand &command, mlir::MLIRContext &context,
                   llvm::raw_ostream &out, llvm::raw_ostream &err);

} // namespace loom

#endif // LOOM_PLAN_PLANCOMMANDLINE_H
