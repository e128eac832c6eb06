//===- PlanFile.h - a chosen plan as a file, and back -----------*- C++ -*-===//
//
// `loom-plan --save-plan F.json` writes the plan it reports; `--plan
// F.json` reads one back and plans, lowers and simulates it again. The
// format, loom-plan/1, is documented in docs/plan-format.md: the model and
// its workload (every option filled in), the target, the layout (every
// parallelism degree and the slices) and, for the reader's information,
// the per-stage layers and memory and the predicted and simulated times.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PLAN_PLANFILE_H
#define LOOM_PLAN_PLANFILE_H

#include "loom/Plan/Planner.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace loom {

/// The format name and version every plan file starts with. (The layout's
/// "placement" is a new optional key: files without it load with the
/// default placement rule, docs/plan-format.md.)
constexpr llvm::StringLiteral kPlanFormat = "loom-plan/1";

/// Writes `plan` (which worked) as a plan file.
void writePlanFile(const PlanOutcome &plan, llvm::raw_ostream &os);

/// A plan file read back: the request that reproduces the plan, and the
/// times it recorded.
struct SavedPlan {
  PlanRequest request;
  std::string targetName;
  /// The recorded times (none when the file has no `result`).
  std::optional<double> predicted, simulated;
};

/// Reads the text of a plan file; errors name the file and the JSON path
/// of the offending value ("plan.json: $.layout.tp: must be at least 1").
llvm::Expected<SavedPlan> readPlanFile(llvm::StringRef text,
                                       llvm::StringRef fileName);

} // namespace loom

#endif // LOOM_PLAN_PLANFILE_H
