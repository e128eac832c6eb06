//===- Planner.cpp - a model on a topology, from config to simulation -----===//
//
// The entry points: one plan (evaluated, then lowered and simulated) and
// a plan or a search as loom-plan reports it. The pieces are in
// Problem.cpp, Evaluate.cpp, SearchSpace.cpp and SearchRunner.cpp.
//
//===----------------------------------------------------------------------===//

#include "Evaluate.h"

#include "loom/Support/Quantity.h"

#include <fmt/format.h>

using namespace mlir;
using namespace loom;

double loom::simulationBudget(const PlanOutcome &outcome) {
  return outcome.training ? kTrainingSimulationBudget : kSimulationBudget;
}

bool loom::beyondSimulator(const PlanOutcome &p) {
  return !p.simulated &&
         (p.simulatedTasks > simulationBudget(p) ||
          (p.unproven && p.estimatedTasks > kProgramBudget) ||
          p.simulationFailed);
}

ParallelLayout PlanOutcome::resolvedLayout() const {
  ParallelLayout resolved = layout;
  resolved.slices = SliceSpec::lengths(sliceLengths);
  if (!placement.empty()) {
    if (llvm::Expected<Placement> parsed = parsePlacement(placement))
      resolved.placement = *parsed;
    else
      llvm::consumeError(parsed.takeError());
  }
  return resolved;
}

PlanOutcome loom::planAndSimulate(const PlanProblem &problem,
                                  const ParallelLayout &layout,
                                  MLIRContext &context,
                                  const PlanOptions &options) {
  Planned planned = planModule(problem, layout, context, options);
  if (planned.outcome.failure.empty() &&
      shouldSimulate(planned.outcome, options.simulate))
    if (std::optional<TargetDesc> desc = lower(planned)) {
      simulateSchedule(planned.outcome, *desc, options.trace);
      if (planned.outcome.unproven)
        finishUnproven(planned, options.trace, /*generate=*/true,
                       options.lowerWholeBudget);
    }
  return std::move(planned.outcome);
}

/// The layout `request` asks for, its free dimensions at their defaults: a
/// training step's sequence whole unless --slices is given (`auto` then
/// TeraPipe's slicing), an inference pipeline's slices TeraPipe's.
static ParallelLayout requestedLayout(const PlanRequest &request) {
  ParallelLayout layout = request.layout.complete();
  if (request.problem.import.training && !request.layout.slices)
    layout.slices = SliceSpec::count(1);
  return layout;
}

/// When the search finds nothing: the request's own plan, lowered too (the
/// lowering refuses layouts the cost model can still price), says why.
static void explainNoneFits(const PlanRequest &request, MLIRContext &context,
                            const PlanOptions &options, PlanResult &result) {
  result.noneFits = true;
  PlanOptions why = options;
  why.simulate = Simulation::Always;
  why.trace = false;
  PlanOutcome &chosen = result.chosen = planAndSimulate(
      request.problem, requestedLayout(request), context, why);
  // No layout at all can hold weights larger than the topology's HBM.
  if (chosen.weightBytes > chosen.sliceHbmBytes && chosen.sliceHbmBytes > 0)
    chosen.failure = fmt::format(
        "its weights alone, {}, exceed the {} of HBM on all {} chips; use a "
        "larger topology",
        formatQuantity(chosen.weightBytes, "B"),
        formatQuantity(chosen.sliceHbmBytes, "B"), chosen.chips);
}

PlanResult loom::planOrSearch(const PlanRequest &request, MLIRContext &context,
                              bool search, const PlanOptions &options) {
  PlanResult result;
  result.searched = search;
  if (!search) {
    result.chosen = planAndSimulate(request.problem, requestedLayout(request),
                                    context, options);
  } else {
    result.search = searchPlans(request, context, options);
    if (result.search.ranked.empty()) {
      explainNoneFits(request, context, options, result);
      return result;
    }
    if (!result.search.winner)
      return result;
    result.chosen = std::move(*result.search.winner);
    result.search.winner.reset();
  }
  // A plan refused before its model was imported (an option out of range,
  // a target or model that cannot be read) blames no layout: nothing to
  // suggest, and printFailure shows no note.
  if (result.chosen.failure.empty() || result.chosen.modelName.empty())
    return result;
  // Say what would fit, with the degrees, the overlap, the handover and the
  // placement free.
  PlanOptions rank = options;
  rank.simulateTop = 0;
  rank.rankOnly = true;
  rank.trace = false;
  rank.progress = nullptr;
  PlanRequest free = request;
  LayoutRequest &layout = free.layout;
  layout.tp = layout.stages = layout.dataParallel = layout.interleave =
      layout.sp = layout.microbatches = std::nullopt;
  layout.decompose = layout.scatterHandover = std::nullopt;
  layout.placement = std::nullopt;
  layout.slices = std::nullopt;
  layout.fsdp = layout.zero = std::nullopt;
  layout.remat = std::nullopt;
  SearchResult fits = searchPlans(free, context, rank);
  result.fitting = fits.ranked.size();
  if (!fits.ranked.empty())
    result.suggestion = std::move(fits.ranked.front());
  return result;
}
