//===- Planner.h - a model on a topology, config to simulation --*- C++ -*-===//
//
// What loom-plan does, as a library: import a model, run the planning
// pipeline once per plan (loom-check-memory's per-stage remarks captured in
// that run), predict, and lower and simulate the same module when its
// program is small enough; search the (data-parallel, tensor-parallel,
// stages) space for the best plan. The report is in Report.h.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PLAN_PLANNER_H
#define LOOM_PLAN_PLANNER_H

#include "loom/Import/ModelImporter.h"
#include "loom/Schedule/Schedule.h"
#include "loom/Sim/Simulator.h"

#include "mlir/IR/MLIRContext.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class PassManager;
} // namespace mlir

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
  /// 2-D weight-stationary tensor parallelism (Pope et al. 2023): the tp
  /// group is a tpX x (tp / tpX) block, d_model split over its tpX rows;
  /// 1: the 1-D layout.
  int64_t tpX = 1;
  /// Weight-gathered (Pope et al. 2023, section 3.2.3): the tp chips split
  /// the batch and run whole layers, each layer's weights (stored split tp
  /// ways) all-gathered before it, prefetched under the layer before.
  bool weightGathered = false;
  /// Expert parallelism (MoE models): experts split over ep chips of the
  /// tensor-parallel group; or (epData) over a group of ep chips of its
  /// own beside it, which splits the batch for attention and dense layers
  /// (a stage holds tp x ep chips).
  int64_t ep = 1;
  bool epData = false;
  /// Chips of a stage: tp x sp, or tp x ep with epData.
  int64_t chipsPerStage() const { return tp * (epData ? ep : sp); }
  /// Ulysses sequence parallelism: sp chips share each tensor-parallel rank
  /// (a stage occupies tp x sp chips).
  int64_t sp = 1;
  /// How the sp chips split attention: "ulysses" (all-to-alls over heads)
  /// or "ring" (K/V blocks around a ring, loom.ring_attention).
  std::string spMode = "ulysses";
  std::string slices = "auto";
  /// Which chips each group occupies (Placement::str()'s form, as
  /// --placement takes it); empty: DeviceMesh's default rule.
  std::string placement;
  /// Units of a stage whose ops run zipped, so that one's collectives
  /// overlap the others' compute (docs/overlap.md).
  int64_t interleave = 1;
  /// Token slices: the batch (each replica's share) runs as this many
  /// microbatches, each cut into the slices (#loom.pipeline).
  int64_t microbatches = 1;
  /// Interleaved stages (token slices; Narayanan et al., SC'21): each stage
  /// holds this many chunks of layers, chunk c on stage c mod stages
  /// (#loom.pipeline's virtual_stages).
  int64_t virtualStages = 1;
  /// Run the tensor-parallel collective matmuls as ring steps under partial
  /// matmuls (docs/overlap.md; interleave 1 only).
  bool decompose = false;
  /// Megatron-LM's scatter/gather handover (Narayanan et al., SC'21,
  /// section 4.1): each tp rank sends 1/tp of a stage boundary and the next
  /// stage's tp group all-gathers it (tp >= 2, a pipeline, boundaries every
  /// rank holds whole: no Megatron sequence parallelism, 2-D block or
  /// weight-gathered layout).
  bool scatterHandover = false;
  /// The search's candidates: where the scatter/gather handover can run,
  /// the plan takes it if the cost model predicts it faster (ties keep
  /// every rank sending its whole copy); `scatterHandover` says which.
  bool chooseHandover = false;
  bool sequenceParallel = false;
  /// searchPlans keeps a degree the user gave at its value and chooses the
  /// others.
  bool fixTp = false, fixStages = false, fixDataParallel = false;
  bool fixEp = false, fixInterleave = false, fixSp = false;
  /// The expert-parallel layout is the request's (epData or not).
  bool fixEpLayout = false;
  bool fixMicrobatches = false;
  bool fixVirtualStages = false;
  bool fixSpMode = false;
  bool fixDecompose = false;
  bool fixScatterHandover = false;
  /// The tensor-parallel layout is the request's (1-D or its tpX).
  bool fixTpLayout = false;
  bool fixPlacement = false;
};

struct PlanOutcome {
  PlanRequest request;
  /// Why the plan cannot run (the diagnostics of the pass that refused
  /// it); empty when it can.
  std::string failure;
  std::string modelName, targetName;
  /// The target file and calibration the plan was priced with.
  Calibration calibration;
  /// The model's family as loom-import records it ("llama", "flux", ...).
  std::string family;
  int64_t chips = 0, layers = 0, tokens = 0;
  /// The placement the plan runs with, resolved (Placement::str()), and
  /// whether it is the default rule's.
  std::string placement;
  bool defaultPlacement = true;
  std::vector<int64_t> sliceLengths;
  bool patches = false;
  int64_t steps = 1, warmup = 0;
  /// The cost model's prediction (one replica) and its pipeline bubble.
  double predicted = 0, bubble = 0;
  /// The lower bound: the workload's FLOPs over all chips at peak, or its
  /// weights read once over all chips' HBM bandwidth, whichever is higher.
  double roofline = 0;
  bool rooflineIsMemory = false;
  /// The ideal time (issue 18's definition): the whole model's per-op
  /// roofline times on one chip (what loom-estimate prices: the full batch,
  /// every step, no collectives), summed and divided by the topology's
  /// chips. Plans of one model on one topology share it, so ideal /
  /// simulated ranks them as their times do.
  double ideal = 0;
  double modelFlops = 0;
  /// Bytes of the model's weights (one copy), and of HBM on all the
  /// topology's chips.
  double weightBytes = 0, sliceHbmBytes = 0;
  /// About how many tasks the lowered program has (all chips); plans far
  /// beyond what a run can hold are not simulated.
  double estimatedTasks = 0;
  /// One line per stage from loom-check-memory.
  std::vector<std::string> memory;
  /// The first and last layer of each stage.
  std::vector<std::pair<int64_t, int64_t>> stageLayers;
  /// The workload as imported, every option the model's default filled in
  /// (the whole batch), so that a saved plan replays without defaults.
  ImportOptions imported;
  /// Mixtures of experts: routed experts per MoE layer, those each chip
  /// holds (each on `expertReplicas` chips, with 1/expertReplicas of its
  /// width) and the bytes of expert weights a chip holds over its layers.
  int64_t experts = 0, expertsPerChip = 0, expertReplicas = 1;
  /// The stage those are counted on: the first with MoE layers.
  int64_t expertStage = 0;
  double expertBytesPerChip = 0;
  std::optional<sim::SimResult> simulated;
  schedule::Schedule schedule;
};

/// Plans whose programs have more tasks than this are reported from the
/// cost model alone: lowering and simulating them would take more memory
/// and seconds than a planning run should.
constexpr double kSimulationBudget = 4e6;

enum class Simulation {
  Never,
  /// When the plan's estimated task count is within kSimulationBudget.
  WithinBudget,
  /// Lower and simulate whatever the size (to hear the lowering's reasons).
  Always,
};

/// The stage handovers a search's candidates simulate (BoundaryTransfers in
/// Planner.cpp), shared among them: many candidates put the same stages on
/// the same chips and hand over the same bytes.
struct HandoverCache;

struct PlanOptions {
  Simulation simulate = Simulation::WithinBudget;
  /// Record the simulated plan's trace (of the winner, with a search).
  bool trace = false;
  /// Search: simulate this many of the best plans by prediction (of those
  /// within kSimulationBudget, while their tasks add up to at most
  /// searchSimulationBudget), and rank by the simulator where it ran.
  int64_t simulateTop = 3;
  /// Search: the tasks of the plans it simulates add up to at most this,
  /// so a search costs about one large simulation at most.
  double searchSimulationBudget = kSimulationBudget;
  /// Search: stop at the ranking (no winner's report, no simulation beyond
  /// the top).
  bool rankOnly = false;
  /// Search: how many threads plan the candidates and simulate the top
  /// ones (0: one per core). The result does not depend on it; a search
  /// with `instrument` runs on the calling thread alone.
  unsigned threads = 0;
  /// Search: called after each candidate is planned and each simulated,
  /// with how many of the search's steps are done (the candidates, then at
  /// most simulateTop simulations; a simulation that fails may leave the
  /// last steps unreported).
  std::function<void(int64_t done, int64_t total)> progress;
  /// Called with every pass manager the planner runs, before it runs: a
  /// place for instrumentation (timing, IR printing, tests).
  std::function<void(mlir::PassManager &)> instrument;
  /// Set by searchPlans for its candidates (one target and topology).
  std::shared_ptr<HandoverCache> handoverCache;
};

/// Plans `request` (the planning pipeline runs once) and, as
/// `options.simulate` says, lowers and simulates the same module. A plan
/// that cannot work comes back with `failure` set.
PlanOutcome planAndSimulate(const PlanRequest &request,
                            mlir::MLIRContext &context,
                            const PlanOptions &options);

/// Every valid (data-parallel, tensor-parallel, stages) plan for the
/// topology with automatic slices (those of `request` that are fixed held
/// at its values), ranked by the cost model; up to `options.simulateTop` of
/// the best, while their tasks add up to at most
/// `options.searchSimulationBudget`, are
/// simulated (from the modules planned for the ranking, not planned again)
/// and ranked by the simulator. Deterministic.
struct SearchResult {
  /// The plans that fit, best first.
  std::vector<PlanOutcome> ranked;
  /// The ones that did not fit (too little memory, invalid degrees).
  int64_t rejected = 0;
  /// The best plan as planAndSimulate reports it (simulated when within
  /// budget), unless rankOnly or nothing fits.
  std::optional<PlanOutcome> winner;
};
SearchResult searchPlans(const PlanRequest &request, mlir::MLIRContext &context,
                         const PlanOptions &options);

/// What loom-plan reports: the request's plan or, with a search, the
/// ranking and its winner; or why there is none, with a plan that fits.
struct PlanResult {
  bool searched = false;
  SearchResult search;
  /// The search found no plan that fits; `chosen` is the request's own
  /// plan, whose `failure` says why (when it knows).
  bool noneFits = false;
  /// The plan reported: the request's or the winner (none with rankOnly).
  /// When its `failure` is set it cannot work.
  PlanOutcome chosen;
  /// When the chosen plan cannot work: the best plan that does, and how
  /// many do.
  std::optional<PlanOutcome> suggestion;
  size_t fitting = 0;
  bool ok() const { return !noneFits && chosen.failure.empty(); }
};
PlanResult planOrSearch(const PlanRequest &request, mlir::MLIRContext &context,
                        bool search, const PlanOptions &options);

/// Why a request cannot be planned as given, before any product of its
/// degrees is formed: a degree below 1, slices given to a search (which
/// chooses them), or a simulate-top without a search or below 0. Empty
/// when it can. `slicesGiven` and `topGiven` say whether the user set them.
std::string checkRequest(const PlanRequest &request, bool search,
                         bool slicesGiven, const PlanOptions &options,
                         bool topGiven);

} // namespace loom

#endif // LOOM_PLAN_PLANNER_H
