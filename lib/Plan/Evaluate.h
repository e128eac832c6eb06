//===- Evaluate.h - one plan, from problem to prediction --------*- C++ -*-===//
//
// The planner's pieces, after CIRCT's scheduling library: a problem is
// checked before it is solved (Problem.cpp), one plan is evaluated by
// materialising its target, importing its workload once, running the
// planning pipeline once and predicting (Evaluate.cpp, with the stage
// handovers in Handover.cpp), the search space is one function per
// dimension with its pruning rule (SearchSpace.cpp), and the runner plans
// the candidates in rounds on threads and simulates the best within a
// budget (SearchRunner.cpp). Private to lib/Plan.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_LIB_PLAN_EVALUATE_H
#define LOOM_LIB_PLAN_EVALUATE_H

#include "loom/Plan/Planner.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace loom {

/// A search's handover simulations by what they depend on besides the
/// target and topology (one per search): the groups (tp, sp, stages, tp_x),
/// the placement, whether the last stage hands back to the first, the
/// bytes, and what is simulated.
struct HandoverCache {
  using Key = std::tuple<int64_t, int64_t, int64_t, int64_t, std::string,
                         bool, int64_t, bool, bool, int64_t, bool>;
  std::mutex mutex;
  std::map<Key, std::vector<double>> simulated;
};

/// What no layout changes: the model as imported, with every option the
/// model's default filled in, and the ideal time of the whole batch.
struct WorkloadFigures {
  std::string modelName, family;
  ImportOptions imported;
  /// The whole model's per-op roofline times on one chip (the full batch,
  /// every step, no collectives), summed and divided by the chips.
  double ideal = 0;
};

/// The model and workload of `module`, imported from `given`, as a plan
/// reports them: every figure but the ideal time, which needs a target.
WorkloadFigures importedWorkload(mlir::ModuleOp module,
                                 const ImportOptions &given);

/// The figures of `module`, the workload imported from `given` with its
/// whole batch, on `chips` chips of `target`.
WorkloadFigures workloadFigures(mlir::ModuleOp module,
                                const ImportOptions &given,
                                const TargetDesc &target, int64_t chips);

/// A search's imported models, one per worker context and batch (the
/// replica's share): each candidate plans a clone rather than importing
/// the model again (a batched DeepSeek-V3 decode search imported it 4891
/// times, a third of its time). The search clears it before its contexts
/// go.
struct ImportCache {
  std::mutex mutex;
  std::map<std::pair<mlir::MLIRContext *, int64_t>,
           mlir::OwningOpRef<mlir::ModuleOp>>
      modules;
  void clear() {
    std::lock_guard<std::mutex> lock(mutex);
    modules.clear();
  }
};

struct SearchShared {
  HandoverCache handovers;
  ImportCache imports;
  /// The workload's figures, from the search's own import.
  std::optional<WorkloadFigures> workload;
};

/// Collects diagnostics as text instead of printing them. The text is the
/// message alone, so the op a diagnostic is emitted at is not printed into
/// a note (a rejected plan's whole function, a twentieth of a search).
struct Captured {
  /// `workloadPlace` (PlanProblem::workloadPlace) locates the errors
  /// about workload options.
  explicit Captured(mlir::MLIRContext &context,
                    llvm::StringRef workloadPlace = "");
  ~Captured();
  /// The errors, separated by "; " (`withPlaces`: each with its file
  /// place, as loom-import names a config's).
  std::string errorText(bool withPlaces = false) const;

  mlir::MLIRContext &context;
  bool printedOp;
  std::vector<std::string> errors, located, remarks;
  mlir::ScopedDiagnosticHandler handler;
};

/// Why `layout` cannot run whatever the model and topology: a degree below
/// 1, or a tensor, expert or handover layout that does not go with the
/// rest (each as the passes and the lowering would refuse it, said before
/// any work). Empty when it can.
std::string checkLayout(const ParallelLayout &layout);
/// Why the order the lowering would run `layout`'s units in cannot be
/// built: virtual stages or decomposed collective matmuls with zipped
/// units, or decomposed ones without tensor parallelism. Checked once the
/// model is known (the report then names a plan that fits). Empty when it
/// can.
std::string checkSchedule(const ParallelLayout &layout);

/// Why an evaluated plan cannot be reported: a figure out of range. Empty
/// when every figure is usable.
std::string verifyPlan(const PlanOutcome &plan);

/// A plan and, while it may still be lowered, its planned module.
struct Planned {
  PlanOutcome outcome;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

/// Imports the workload of `problem` once, runs the planning pipeline for
/// `layout` on it once (loom-check-memory's remarks, captured in that run,
/// are the report's memory lines) and predicts. The module comes back
/// unless the plan failed.
Planned planModule(const PlanProblem &problem, const ParallelLayout &layout,
                   mlir::MLIRContext &context, const PlanOptions &options);

bool shouldSimulate(const PlanOutcome &outcome, Simulation policy);
/// Lowers the planned module into `planned.outcome`'s schedule and returns
/// the target to simulate it on, or sets `failure`. The module is consumed
/// unless the schedule holds only the first repetitionSteps steps (`whole`
/// false): it stays for lowerWhole, should the proof fail.
/// `firstSteps` above 0 lowers that many steps rather than
/// repetitionSteps (finishUnproven's generated program).
std::optional<TargetDesc> lower(Planned &planned, bool whole = false,
                                int64_t firstSteps = 0);
/// Simulates a lowered plan's schedule, into `out`. Plain data, no IR: a
/// search runs several at once. A schedule of the first steps is simulated
/// with the repetition proof; when it finds none, `out.simulated` is left
/// unset with `out.simulated`'s `unproven` result in `unproven` (see
/// finishUnproven).
void simulateSchedule(PlanOutcome &out, const TargetDesc &desc, bool trace);
/// After simulateSchedule found no repetition: the whole program lowered
/// and simulated when it is within kSimulationBudget, else, within
/// kProgramBudget, simulated whole from the schedule of its first steps
/// (sim::simulateProgram; the schedule is lowered again if it was freed,
/// and kept); else the plan stays unsimulated. Needs the module lower
/// kept. Returns the tasks it ran. With `generate` false, a program over
/// kSimulationBudget stays unsimulated (a search generates its winner's
/// alone).
double finishUnproven(Planned &planned, bool trace, bool generate = true,
                      double lowerWhole = kSimulationBudget);

/// The cost model's time of a planned training step (TrainingPrediction.cpp)
/// and its parts, for one replica (all run alike).
struct TrainingStepPrediction {
  double seconds = 0;
  /// The TensorCore's forward and backward work, the optimizer's updates,
  /// and the time it waits for collectives between replicas.
  double compute = 0, optimizer = 0, exposed = 0;
  /// On several stages, the time the stage that ends last waits for the
  /// stages beside it (the pipeline's bubble).
  double pipelineWait = 0;
  /// About how many tasks one rank's program has.
  double tasksPerRank = 0;
};
/// None when `module` holds no training step. With `slices` the step's
/// sequence is cut into those token slices instead of the plan's.
std::optional<TrainingStepPrediction>
predictTrainingStep(mlir::ModuleOp module, const TargetDesc &desc,
                    const TopologyDesc &topology, const ParallelLayout &layout,
                    const Placement &placement,
                    llvm::ArrayRef<int64_t> slices = {});

/// Why `layout` cannot plan the problem's step: a training layout (fsdp,
/// zero, remat) for a forward pass, or for a training step a dimension its
/// lowering does not build. Empty when it can.
std::string checkTraining(const ParallelLayout &layout, bool training);

/// The cost model's order, made total by the layouts.
bool byPrediction(const PlanOutcome &a, const PlanOutcome &b);

} // namespace loom

#endif // LOOM_LIB_PLAN_EVALUATE_H
