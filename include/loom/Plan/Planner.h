//===- Planner.h - a model on a topology, config to simulation --*- C++ -*-===//
//
// What loom-plan does, as a library: a problem (a model's workload on a
// topology) and a layout (ParallelLayout) make one plan, planned once
// through the pipeline and predicted, then lowered and simulated when its
// program is small enough; a request gives some of the layout's dimensions
// and a search chooses the others. The pieces are in lib/Plan (Problem,
// Evaluate, SearchSpace, SearchRunner); the report is in Report.h.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PLAN_PLANNER_H
#define LOOM_PLAN_PLANNER_H

#include "loom/Import/ModelImporter.h"
#include "loom/Schedule/Schedule.h"
#include "loom/Sim/Simulator.h"
#include "loom/Transforms/ParallelLayout.h"

#include "mlir/IR/MLIRContext.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class PassManager;
} // namespace mlir

namespace loom {

/// What to plan: a model's workload on a topology.
struct PlanProblem {
  std::string model;
  /// The topology to plan for, of a bundled target or of `targetFile`.
  std::string topology = "v5e-16";
  std::string targetFile;
  /// The workload; `import.batch` is the whole batch, which the
  /// data-parallel replicas share equally.
  ImportOptions import;
  /// Where the workload was given, named by the errors of an option that
  /// does not fit the model: empty for loom-plan's command line (the
  /// message names the option), "FILE: $.workload" for a plan file.
  std::string workloadPlace;
};

/// A problem and the layout dimensions the user gave; a search chooses the
/// others, a single plan takes their defaults.
struct PlanRequest {
  PlanProblem problem;
  LayoutRequest layout;
};

struct PlanOutcome {
  PlanProblem problem;
  /// The layout planned: the one asked for, with a 2-D block's rows
  /// resolved and the handover the search chose.
  ParallelLayout layout;
  /// Why the plan cannot run (the diagnostics of the pass that refused
  /// it); empty when it can.
  std::string failure;
  std::string modelName, targetName;
  /// The target file and calibration the plan was priced with.
  Calibration calibration;
  /// The model's family as loom-import records it ("llama", "flux", ...).
  std::string family;
  int64_t chips = 0, layers = 0, tokens = 0;
  /// The slices of the topology, joined by the DCN, and one slice's chips.
  int64_t slices = 1, sliceChips = 0;
  /// The layout's degrees over the DCN (one slice: 1 and 1).
  DcnDegrees dcn() const {
    return dcnDegrees(layout.chipsPerStage() * layout.stages, sliceChips,
                      slices);
  }
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
  /// The ideal time: the whole model's per-op
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
  /// The tasks its simulation runs: estimatedTasks, or a denoising
  /// pipeline's first kRepetitionSteps steps' share of them when it has
  /// more (the simulator proves the rest repeat; simulateSchedule falls
  /// back to the whole program when it cannot). Set by planModule.
  double simulatedTasks = 0;
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
  /// A training step (the problem's workload has `training`): the
  /// sequences (a DiT: images) one step trains on, all replicas, each of
  /// `tokens`; the FLOPs each chip runs again for
  /// the backward pass (its recomputed forward ops), and of the
  /// prediction, the seconds of the optimizer's updates and those the
  /// TensorCore waits for collectives between replicas.
  bool training = false;
  double stepSequences = 0, recomputeFlopsPerChip = 0;
  double stepTokens() const { return stepSequences * double(tokens); }
  double predictedOptimizer = 0, predictedExposed = 0;
  /// A training step cut into token slices (TeraPipe): the predicted step
  /// with the best equal slices instead (`equalSlices` of them) and with
  /// the sequence whole.
  struct SliceBaselines {
    int64_t equalSlices = 0;
    double equal = 0, whole = 0;
  };
  std::optional<SliceBaselines> sliceBaselines;
  std::optional<sim::SimResult> simulated;
  /// Its first steps were simulated but the simulator found no repetition
  /// (finishUnproven decides what runs instead).
  bool unproven = false;
  /// Its first steps' run was to be generated from the schedule of fewer
  /// (a search's: generatedFirstSteps) and their steps are not alike
  /// enough: the first steps are to be lowered and run (lower, then
  /// simulateSchedule).
  bool lowerFirstSteps = false;
  /// PlanOptions::repetition as it was planned.
  bool repetition = true;
  /// The simulator was asked to run it and could not: its first steps did
  /// not repeat and its steps are not alike enough to generate its whole
  /// program from, which is over what is lowered whole (beyondSimulator).
  bool simulationFailed = false;
  /// PlanOptions::everyReplica as it was planned.
  bool everyReplica = false;
  schedule::Schedule schedule;

  /// The layout as it ran: `layout` with its slices' lengths and its
  /// placement resolved (what plan files and reports record).
  ParallelLayout resolvedLayout() const;
};

/// The most tasks `outcome`'s simulation may run: kSimulationBudget, or
/// kTrainingSimulationBudget for a training step.
double simulationBudget(const PlanOutcome &outcome);

/// Whether the simulator cannot run `outcome` (not simulated): its
/// program, or the first steps of it the repetition proof runs, is over
/// its budget (simulationBudget); or the proof found no repetition and the
/// whole program is over kProgramBudget; or it was tried and failed
/// (PlanOutcome::simulationFailed). A search ranks such plans after the
/// ones the simulator can run, so that its winner is simulated.
bool beyondSimulator(const PlanOutcome &outcome);

/// Plans whose programs have more tasks than this are reported from the
/// cost model alone: lowering and simulating them would take more memory
/// and seconds than a planning run should.
constexpr double kSimulationBudget = 4e6;

/// A training step's budget: its program is simulated whole (it has no
/// denoising steps to repeat) and a training search's goal is 60 s where
/// an inference search's is 10 (bench/search.sh). Llama 2 70B's step of
/// 512 sequences over 256 chips with FSDP, 4.25 million tasks, lowers and
/// simulates in 10.3 CPU seconds and 1.38 GB on the reference machine
/// (bench/README.md, "Search speed"): about 330 bytes a task in all.
constexpr double kTrainingSimulationBudget = 5e6;

/// A plan whose first steps do not repeat, its whole program over
/// kSimulationBudget, is simulated whole from the schedule of its first
/// steps (sim::simulateProgram: a run's state of 16 bytes a task
/// beside that schedule, not a schedule of every task) when its program
/// has at most this many tasks: the largest bundled video DiT at 720p on
/// v5e-256 has 22.9 million.
constexpr double kProgramBudget = 25e6;

/// The steps past the warm-up whose schedule a generated program is made
/// from (finishUnproven): sim::simulateProgram copies the last but one,
/// alike the one before it, and the first after the warm-up may differ
/// from the second, so four; fewer steps lowered are fewer bytes held (a
/// schedule's task is 264).
constexpr int64_t kGeneratedSteps = 4;

/// The denoising steps past the warm-up a plan of more steps is simulated
/// for before the simulator's repetition proof extrapolates the rest
/// (sim::simulate's programSteps): the proof compares two consecutive
/// step starts whose state lies in steps alike task for task, away from
/// the program's first and last steps. Six was enough for every bundled
/// DiT's search winner that repeats at all (bench/search.sh); a plan that
/// has not settled by then (docs/planning.md) was still unsettled after
/// 26 steps.
constexpr int64_t kRepetitionSteps = 6;

/// The denoising steps `outcome`'s simulation lowers (0: the whole
/// program): its warm-up and kRepetitionSteps, when it has more steps.
int64_t repetitionSteps(const PlanOutcome &outcome);

/// The steps a search lowers of a plan whose first steps run by
/// repetition (repetitionSteps): its warm-up and kGeneratedSteps, when
/// that is fewer; the run of the first steps is generated from them
/// (sim::simulateByRepetition), the same run at about half the lowering
/// and memory, and should they not repeat, the whole program is generated
/// from the same schedule. 0 (the first steps lowered) otherwise.
int64_t generatedFirstSteps(const PlanOutcome &outcome);

enum class Simulation {
  Never,
  /// When the plan's simulated task count is within its budget
  /// (simulationBudget).
  WithinBudget,
  /// Lower and simulate whatever the size (to hear the lowering's reasons).
  Always,
};

/// What a search's candidates share (lib/Plan/Evaluate.h): the workload's
/// figures, which do not depend on the layout, and the stage handovers
/// they simulate (many put the same stages on the same chips and hand over
/// the same bytes).
struct SearchShared;

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
  /// A plan whose first steps do not repeat is lowered and simulated whole
  /// when its program has at most this many tasks, and above it (within
  /// kProgramBudget) generated from its first steps (finishUnproven); the
  /// figures are the same (tests set 0 to generate small programs).
  double lowerWholeBudget = kSimulationBudget;
  /// Search: stop at the ranking (no winner's report, no simulation beyond
  /// the top).
  bool rankOnly = false;
  /// Simulate a denoising program of more than kRepetitionSteps steps
  /// past its warm-up by its first steps and the simulator's repetition
  /// proof (false: every step, within kSimulationBudget).
  bool repetition = true;
  /// Simulate every data-parallel replica's chips rather than one
  /// replica's for all (sim::SimOptions::everyReplica): the same figures,
  /// slower (for tests and benchmarks).
  bool everyReplica = false;
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
  std::shared_ptr<SearchShared> shared;
  /// Verify the module after every pass of the planning pipeline; false
  /// (a search's candidates) verifies it once, after the last pass.
  bool verifyEachPass = true;
  /// Set by searchPlans when the handover is free: where a plan can take
  /// the scatter/gather handover it takes it if the cost model predicts it
  /// faster (ties keep every rank sending its whole copy).
  bool chooseHandover = false;
};

/// Plans `layout` for `problem` (the model imported once, the planning
/// pipeline run once) and, as `options.simulate` says, lowers and simulates
/// the same module. A plan that cannot work comes back with `failure` set.
PlanOutcome planAndSimulate(const PlanProblem &problem,
                            const ParallelLayout &layout,
                            mlir::MLIRContext &context,
                            const PlanOptions &options);

/// Every valid plan for the topology with automatic slices (the
/// dimensions the request gives held at their values; the search space and
/// its pruning rules are in lib/Plan/SearchSpace.cpp), ranked by the cost model; up to `options.simulateTop` of
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
/// chooses them), a placement that does not parse, or a simulate-top
/// without a search or below 0. Empty when it can. `topGiven` says whether
/// the user set the simulate-top.
std::string checkRequest(const PlanRequest &request, bool search,
                         const PlanOptions &options, bool topGiven);

} // namespace loom

#endif // LOOM_PLAN_PLANNER_H
