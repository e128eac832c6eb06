//===- PlanFuzzer.cpp - fuzzes the plan file reader -----------------------===//
//
// The input is a plan file (docs/plan-format.md), as `loom-plan --plan`
// reads it. readPlanFile either refuses it or gives back a request; the
// request is checked as loom-plan checks it and, when it names a small
// bundled model on a small layout, planned, lowered and simulated. The
// planner must refuse it with a reason or plan it; a plan it makes is
// written as a plan file that reads back to the same request (written
// identically), so what --save-plan writes, --plan replays.
//
// Planning is bounded so that an input costs at most a fraction of a
// second: models named by path (the fuzzer reads no files) or with a
// target file, large models, and workloads or layouts past the bounds
// below are read and checked but not planned.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "loom/Plan/PlanFile.h"
#include "loom/Plan/Planner.h"

#include "llvm/ADT/STLExtras.h"

using namespace loom::fuzz;

namespace {

/// The bundled models the fuzzer plans: one LLM, one DiT.
constexpr llvm::StringLiteral kPlannedModels[] = {"llama-7b", "dit-xl-2"};

/// Whether planning `r` stays cheap: at most 8 chips in use, 2048 tokens,
/// a 512-pixel side and 4 steps.
bool smallEnoughToPlan(const loom::PlanProblem &p,
                       const loom::ParallelLayout &r) {
  if (!llvm::is_contained(kPlannedModels, p.model) || !p.targetFile.empty())
    return false;
  const loom::ImportOptions &w = p.import;
  auto atMost = [](const std::optional<int64_t> &v, int64_t bound) {
    return !v || *v <= bound;
  };
  // Each degree is at least 1 here (checkRequest), so the bound on the
  // product also bounds each factor without overflow.
  if (r.tp > 8 || r.stages > 8 || r.dataParallel > 8 ||
      r.tp * r.stages * r.dataParallel > 8)
    return false;
  return atMost(w.batch, 4) && atMost(w.seqLen, 2048) &&
         atMost(w.resolution, 512) && atMost(w.height, 512) &&
         atMost(w.width, 512) && atMost(w.frames, 1) && atMost(w.steps, 4) &&
         atMost(w.textLen, 512);
}

std::string written(const loom::PlanOutcome &plan) {
  std::string text;
  llvm::raw_string_ostream os(text);
  loom::writePlanFile(plan, os);
  return text;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::Expected<loom::SavedPlan> saved =
      loom::readPlanFile(asText(data, size), "fuzz.json");
  if (!saved) {
    std::string message = llvm::toString(saved.takeError());
    // Every refusal names the file, as loom-plan prints it.
    if (!llvm::StringRef(message).starts_with("fuzz.json"))
      fuzzInvariantFailed("a refusal does not name the plan file", message);
    return 0;
  }
  const loom::PlanRequest &request = saved->request;
  loom::ParallelLayout layout = request.layout.complete();
  loom::PlanOptions options;
  // As loom-plan checks a replayed request: no search, slices as written.
  if (!loom::checkRequest(request, /*search=*/false, options,
                          /*topGiven=*/false)
           .empty() ||
      !smallEnoughToPlan(request.problem, layout))
    return 0;

  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  QuietDiagnostics diagnostics(context);
  loom::PlanOutcome plan =
      loom::planAndSimulate(request.problem, layout, context, options);
  if (!plan.failure.empty())
    return 0;
  if (!(plan.predicted > 0))
    fuzzInvariantFailed("a plan that works predicts no time",
                        diagnostics.str());
  std::string first = written(plan);
  llvm::Expected<loom::SavedPlan> again =
      loom::readPlanFile(first, "written.json");
  if (!again)
    fuzzInvariantFailed("a written plan does not read back",
                        llvm::toString(again.takeError()) + "\n" + first);
  // The request read back, in place of the one planned, writes the same
  // file: the reader inverts the writer.
  loom::PlanOutcome replayed = plan;
  replayed.problem = again->request.problem;
  replayed.layout = again->request.layout.complete();
  replayed.imported = again->request.problem.import;
  std::string second = written(replayed);
  if (first != second)
    fuzzInvariantFailed("a plan read back is written differently",
                        first + "\n---\n" + second);
  return 0;
}
