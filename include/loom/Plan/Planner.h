//===- Planner.h - a model on a slice, from config to simulation -*- C++ -*-===//
//
// What loom-plan does, as a library: import a model, run the planning
// passes, lower the plan to a schedule and simulate it, all in one process
// through the same passes as loom-opt; and search the (data-parallel,
// tensor-parallel, stages) space for the best plan.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PLAN_PLANNER_H
#define LOOM_PLAN_PLANNER_H

#include "loom/Import/ModelImporter.h"
#include "loom/Schedule/Schedule.h"
#include "loom/Sim/Simulator.h"

#include "mlir/IR/MLIRContext.h"

#include <optional>
#include <string>
#include <vector>

namespace loom {

struct PlanRequest {
  std::string model;
  /// The topology to plan for, of a bundled target or of `targetFile`.
  std::string topology = "v5e-16";
  std::string targetFile;
  /// The workload; `import.batch` is the whole batch, which the
  /// `dataParallel` replicas share equally.
  ImportOptions import;
  int64_t tp = 1, stages = 1, dataParallel = 1;
  std::string slices = "auto";
  bool sequenceParallel = false;
  /// searchPlans keeps a degree the user gave at its value and chooses the
  /// others.
  bool fixTp = false, fixStages = false, fixDataParallel = false;
};

struct PlanOutcome {
  PlanRequest request;
  /// Why the plan cannot run (the diagnostics of the pass that refused
  /// it); empty when it can.
  std::string failure;
  std::string modelName, targetName;
  int64_t chips = 0, layers = 0, tokens = 0;
  std::vector<int64_t> sliceLengths;
  bool patches = false;
  int64_t steps = 1, warmup = 0;
  /// The cost model's prediction (one replica) and its pipeline bubble.
  double predicted = 0, bubble = 0;
  /// The lower bound: the workload's FLOPs over all chips at peak, or its
  /// weights read once over all chips' HBM bandwidth, whichever is higher.
  double roofline = 0;
  bool rooflineIsMemory = false;
  double modelFlops = 0;
  /// Bytes of the model's weights (one copy), and of HBM on all the
  /// slice's chips.
  double weightBytes = 0, sliceHbmBytes = 0;
  /// About how many tasks the lowered program has (all chips); the search
  /// does not simulate plans far beyond what a run can hold.
  double estimatedTasks = 0;
  /// One line per stage from loom-check-memory.
  std::vector<std::string> memory;
  std::optional<sim::SimResult> simulated;
  schedule::Schedule schedule;
};

/// Plans `request`; simulates it when `simulate` (recording a trace when
/// `trace`). A plan that cannot work comes back with `failure` set.
PlanOutcome plan(const PlanRequest &request, mlir::MLIRContext &context,
                 bool simulate, bool trace);

/// Every valid (data-parallel, tensor-parallel, stages) plan for the slice
/// with automatic slices (those of `request` that are fixed held at its
/// values), ranked by the cost model; the `simulateTop` best
/// whose programs have at most kSimulationBudget tasks are simulated and
/// ranked by the simulator. Deterministic. The ones that do not fit are
/// left out; `rejected` counts them.
constexpr double kSimulationBudget = 4e6;
std::vector<PlanOutcome> searchPlans(const PlanRequest &request,
                                     mlir::MLIRContext &context,
                                     int64_t simulateTop, int64_t &rejected);

} // namespace loom

#endif // LOOM_PLAN_PLANNER_H
