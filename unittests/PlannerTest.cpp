//===- PlannerTest.cpp - the planner runs each plan's pipeline once -------===//

#include "loom/Plan/Planner.h"
#include "loom/Plan/Report.h"
#include "loom/InitAll.h"
#include "loom/Sim/Simulator.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringMap.h"

#include <gtest/gtest.h>

#include <map>

using namespace mlir;
using namespace loom;

namespace {

/// Counts the runs of each pass, by its command-line name.
struct PassCounter : public PassInstrumentation {
  explicit PassCounter(llvm::StringMap<int> &runs) : runs(runs) {}
  void runBeforePass(Pass *pass, Operation *) override {
    ++runs[pass->getArgument()];
  }
  llvm::StringMap<int> &runs;
};

struct Planner : public ::testing::Test {
  Planner() : context(registry()) { context.loadAllAvailableDialects(); }
  static DialectRegistry registry() {
    DialectRegistry registry;
    registerAllDialects(registry);
    return registry;
  }
  PlanOptions counted() {
    PlanOptions options;
    options.instrument = [this](PassManager &pm) {
      ++passManagers;
      pm.addInstrumentation(std::make_unique<PassCounter>(runs));
    };
    return options;
  }
  MLIRContext context;
  llvm::StringMap<int> runs;
  int passManagers = 0;
};

PlanRequest llama7b(StringRef topology) {
  PlanRequest request;
  request.problem.model = "llama-7b";
  request.problem.topology = topology.str();
  return request;
}

TEST_F(Planner, ASimulatedPlanRunsThePipelineOnce) {
  PlanRequest request = llama7b("v5e-4");
  request.layout.tp = 2;
  request.layout.stages = 2;
  PlanOutcome plan = planAndSimulate(request.problem, request.layout.complete(), context, counted());
  ASSERT_EQ(plan.failure, "");
  ASSERT_TRUE(plan.simulated.has_value());
  EXPECT_GT(plan.simulated->makespan, 0);
  EXPECT_FALSE(plan.schedule.chips.empty());
  // One pass manager, every planning pass once; the memory check's
  // per-stage remarks came from that run.
  EXPECT_EQ(passManagers, 1);
  for (StringRef pass : {"loom-shard-heads", "loom-partition-layers",
                         "loom-split-tokens", "loom-check-memory"})
    EXPECT_EQ(runs.lookup(pass), 1) << pass.str();
  ASSERT_EQ(plan.memory.size(), 2u);
  EXPECT_NE(plan.memory[0].find("stage 0 (layers 0-15)"), std::string::npos)
      << plan.memory[0];
  EXPECT_NE(plan.memory[1].find("stage 1 (layers 16-31)"), std::string::npos)
      << plan.memory[1];
}

// A library user need not register or load Loom's dialects first: the
// planner loads what it builds (the plan fuzzer found the lowering's
// crash in a bare context).
TEST(PlannerLibrary, PlansInABareContext) {
  MLIRContext bare(MLIRContext::Threading::DISABLED);
  PlanRequest request = llama7b("v5e-4");
  request.layout.tp = 2;
  request.layout.stages = 2;
  PlanOutcome plan = planAndSimulate(request.problem, request.layout.complete(), bare, PlanOptions());
  ASSERT_EQ(plan.failure, "");
  ASSERT_TRUE(plan.simulated.has_value());
  EXPECT_GT(plan.simulated->makespan, 0);
}

// (Its first steps do not repeat, and its whole program is over the tasks
// a generated program may have.)
TEST_F(Planner, APlanOverTheBudgetIsPredictedNotSimulated) {
  PlanRequest request;
  request.problem.model = "dit-xl-2";
  request.problem.topology = "v5e-4";
  request.problem.import.steps = 400;
  request.layout.tp = 2;
  request.layout.stages = 2;
  request.layout.slices = SliceSpec::count(256);
  PlanOutcome plan = planAndSimulate(request.problem, request.layout.complete(), context, counted());
  ASSERT_EQ(plan.failure, "");
  EXPECT_GT(plan.estimatedTasks, kProgramBudget);
  EXPECT_FALSE(plan.simulated.has_value());
  EXPECT_GT(plan.predicted, 0);
  EXPECT_EQ(runs.lookup("loom-check-memory"), 1);
}

TEST_F(Planner, ASearchPlansEachCandidateOnceAndSimulatesItsTop) {
  PlanOptions options = counted();
  options.simulateTop = 3;
  SearchResult search = searchPlans(llama7b("v5e-8"), context, options);
  ASSERT_FALSE(search.ranked.empty());
  int candidates = search.ranked.size() + search.rejected;
  int simulated = llvm::count_if(search.ranked, [](const PlanOutcome &p) {
    return p.simulated.has_value();
  });
  EXPECT_EQ(simulated, 3);
  // The simulated plans and the winner were lowered from the modules
  // planned for the ranking, not planned again.
  EXPECT_EQ(runs.lookup("loom-shard-heads"), candidates);
  EXPECT_EQ(runs.lookup("loom-check-memory"), candidates);
  EXPECT_EQ(passManagers, candidates);
  ASSERT_TRUE(search.winner.has_value());
  ASSERT_TRUE(search.winner->simulated.has_value());
  EXPECT_EQ(search.winner->layout.tp, search.ranked.front().layout.tp);
  EXPECT_EQ(search.winner->simulated->makespan,
            search.ranked.front().simulated->makespan);
}

TEST_F(Planner, ASearchsSimulationsShareOneBudgetOfTasks) {
  PlanOptions options;
  options.simulateTop = 3;
  options.rankOnly = true;
  SearchResult all = searchPlans(llama7b("v5e-8"), context, options);
  ASSERT_GE(all.ranked.size(), 3u);
  // By prediction, the three simulated with the whole budget.
  std::vector<PlanOutcome> best = all.ranked;
  llvm::stable_sort(best, [](const PlanOutcome &a, const PlanOutcome &b) {
    return a.predicted < b.predicted;
  });
  auto simulatedOf = [](const SearchResult &search) {
    return llvm::count_if(search.ranked, [](const PlanOutcome &p) {
      return p.simulated.has_value();
    });
  };
  ASSERT_EQ(simulatedOf(all), 3);
  // Room for the first two only: the third is not simulated, and neither
  // is a smaller plan further down (the search stops at the first that
  // does not fit what is left).
  options.searchSimulationBudget =
      best[0].estimatedTasks + best[1].estimatedTasks;
  SearchResult two = searchPlans(llama7b("v5e-8"), context, options);
  EXPECT_EQ(simulatedOf(two), 2);
  auto sameLayout = [](const PlanOutcome &a, const PlanOutcome &b) {
    return a.layout.tp == b.layout.tp &&
           a.layout.stages == b.layout.stages &&
           a.layout.dataParallel == b.layout.dataParallel;
  };
  for (const PlanOutcome &p : two.ranked) {
    if (p.simulated) {
      EXPECT_TRUE(sameLayout(p, best[0]) || sameLayout(p, best[1]))
          << "tp " << p.layout.tp << " x " << p.layout.stages;
    }
  }
  options.searchSimulationBudget = best[0].estimatedTasks - 1;
  EXPECT_EQ(simulatedOf(searchPlans(llama7b("v5e-8"), context, options)), 0);
}

// Only the winner needs its schedule (its trace, timeline, report); the
// other simulated plans do not keep theirs.
TEST_F(Planner, OnlyTheWinnerKeepsItsSchedule) {
  PlanOptions options;
  options.simulateTop = 3;
  SearchResult search = searchPlans(llama7b("v5e-8"), context, options);
  ASSERT_TRUE(search.winner.has_value());
  EXPECT_FALSE(search.winner->schedule.chips.empty());
  for (const PlanOutcome &p : search.ranked)
    EXPECT_TRUE(p.schedule.chips.empty());
}

TEST_F(Planner, AnUnsimulatedWinnerIsSimulatedFromItsPlannedModule) {
  PlanOptions options = counted();
  options.simulateTop = 0;
  SearchResult search = searchPlans(llama7b("v5e-8"), context, options);
  ASSERT_FALSE(search.ranked.empty());
  EXPECT_FALSE(search.ranked.front().simulated.has_value());
  ASSERT_TRUE(search.winner.has_value());
  EXPECT_TRUE(search.winner->simulated.has_value());
  EXPECT_EQ(runs.lookup("loom-shard-heads"),
            int(search.ranked.size() + search.rejected));
}

TEST_F(Planner, SimulationsBeyondTheKeptModulesPlanAgain) {
  // Sixteen modules at most are kept: simulating all 31 plans of a short
  // llama-7b batch on v5e-16 plans the ones past the kept again.
  PlanOptions options = counted();
  options.simulateTop = 100;
  options.rankOnly = true;
  PlanRequest request = llama7b("v5e-16");
  request.problem.import.seqLen = 256;
  request.problem.import.batch = 4;
  // Without overlap (an interleaved pipeline needs two slices, which the
  // slicing may not give: those would be rejected).
  request.layout.interleave = 1;
  SearchResult search = searchPlans(request, context, options);
  ASSERT_EQ(search.rejected, 0);
  int candidates = search.ranked.size();
  int simulated = llvm::count_if(search.ranked, [](const PlanOutcome &p) {
    return p.simulated.has_value();
  });
  ASSERT_GT(simulated, 16);
  EXPECT_EQ(runs.lookup("loom-shard-heads"), candidates + simulated - 16);
}

TEST_F(Planner, ASearchReportsItsProgressUpToItsLastStep) {
  PlanOptions options;
  options.simulateTop = 2;
  std::vector<std::pair<int64_t, int64_t>> calls;
  options.progress = [&](int64_t done, int64_t total) {
    calls.emplace_back(done, total);
  };
  SearchResult search = searchPlans(llama7b("v5e-8"), context, options);
  ASSERT_FALSE(calls.empty());
  int64_t candidates = search.ranked.size() + search.rejected;
  // One step per candidate planned and per plan simulated, counted up to
  // the total announced from the start.
  EXPECT_EQ(int64_t(calls.size()), candidates + 2);
  for (auto [i, call] : llvm::enumerate(calls)) {
    EXPECT_EQ(call.first, int64_t(i) + 1);
    EXPECT_EQ(call.second, candidates + 2);
  }
}

TEST(SearchProgress, QuietForASecondThenOneLineRewrittenThenCleared) {
  std::string text;
  llvm::raw_string_ostream os(text);
  double clock = 0;
  SearchProgress progress(os, [&] { return clock; });
  clock = 0.5;
  progress(1, 10);
  EXPECT_EQ(text, "");
  clock = 1.5;
  progress(2, 10);
  progress(3, 10);
  EXPECT_EQ(text, "\rloom-plan: searching: plans evaluated 2 of 10"
                  "\rloom-plan: searching: plans evaluated 3 of 10");
  progress.finish();
  EXPECT_EQ(text.substr(text.size() - 62), "\r" + std::string(60, ' ') + "\r");
  // A search faster than a second prints nothing at all.
  std::string quiet;
  llvm::raw_string_ostream qs(quiet);
  SearchProgress fast(qs, [] { return 0.0; });
  fast(1, 2);
  fast.finish();
  EXPECT_EQ(quiet, "");
}

} // namespace

// The budget that keeps a search's simulations small reads the planner's
// estimate of each program's tasks; it must be the lowered program's
// count to within a small factor, for every kind of layer and plan.
TEST_F(Planner, TheTaskEstimateIsTheLoweredProgramsSize) {
  struct Case {
    const char *model, *topology;
    int64_t tp, stages, sp = 1, ep = 1, microbatches = 1, batch = 1;
    bool decompose = false;
    const char *spMode = "ulysses";
    int64_t seqLen = 0, interleave = 1;
    const char *slices = "auto";
  };
  std::vector<Case> cases = {
      {"llama-7b", "v5e-4", 2, 2},
      {"llama-7b", "v5e-4", 4, 1, 1, 1, 1, 1, true},
      {"llama-7b", "v5e-8", 2, 4, 1, 1, 2, 2},
      {"gemma2-9b", "v5e-4", 2, 2},
      {"mixtral-8x7b", "v5e-8", 4, 2, 1, 4},
      {"qwen3-30b-a3b", "v5e-8", 4, 2, 1, 4},
      {"deepseek-v3", "v5e-256", 16, 16, 1, 16, 1, 1, false, "ulysses", 256},
      {"flux-schnell", "v5e-4", 1, 2, 2},
      {"dit-xl-2", "v5e-4", 1, 1, 4, 1, 1, 1, false, "ring"},
      {"sd3-medium", "v5e-8", 2, 2, 2},
      {"llama-7b", "v5e-4", 2, 2, 1, 1, 1, 1, false, "ulysses", 0, 2, "4"},
  };
  for (const Case &c : cases) {
    PlanRequest request;
    request.problem.model = c.model;
    request.problem.topology = c.topology;
    request.layout.tp = c.tp;
    request.layout.stages = c.stages;
    request.layout.sp = c.sp;
    request.layout.ep = c.ep;
    request.layout.spMode = StringRef(c.spMode) == "ring" ? SequenceMode::Ring
                                                     : SequenceMode::Ulysses;
    request.layout.microbatches = c.microbatches;
    request.layout.decompose = c.decompose;
    request.layout.interleave = c.interleave;
    request.layout.slices = cantFail(SliceSpec::parse(c.slices));
    if (c.batch > 1)
      request.problem.import.batch = c.batch;
    if (c.seqLen)
      request.problem.import.seqLen = c.seqLen;
    PlanOptions options;
    options.simulate = Simulation::Always;
    // The whole program, every step lowered.
    options.repetition = false;
    PlanOutcome plan = planAndSimulate(request.problem, request.layout.complete(), context, options);
    ASSERT_EQ(plan.failure, "") << c.model;
    size_t tasks = 0;
    for (const auto &chip : plan.schedule.chips)
      tasks += chip.tasks.size();
    // Within 10%: the estimate leaves out the handful of tasks a stage's
    // allocations of weights and caches add once.
    EXPECT_NEAR(plan.estimatedTasks / double(tasks), 1.0, 0.1)
        << c.model << " on " << c.topology << ": estimated "
        << plan.estimatedTasks << ", lowered " << tasks;
  }
}

#include "loom/Plan/Emit.h"

namespace {

// The chips jax's mesh_utils.create_device_mesh (JAX 0.4.32 on) gives
// MaxText's tensor axis, worked from jax/_src/mesh_utils.py by hand. Loom's
// shapes are rows x cols with JAX's x along the columns (v5e-8 is 2x4, x
// of 4). v5e handler: v5e-4's ring (0, 1, 3, 2) and v5e-8's (0, 1, 2, 3, 7,
// 6, 5, 4), cut into runs of tp by a (data, tensor) mesh: the whole ring,
// or runs along row 0; v5e-16's ring only for all 16. Elsewhere the
// generic assignment: the tensor axis takes the physical axes whose sizes
// multiply to tp, two before one, x before y; all chips run y fastest
// (down each column).
TEST(RuntimePlacement, CreateDeviceMeshByHand) {
  auto at = [](llvm::ArrayRef<int64_t> shape, int64_t tp) {
    return runtimeTensorPlacement("tpu-v5e", shape, tp).value_or("none");
  };
  EXPECT_EQ(at({2, 2}, 4), "2x2, tp 2x2 inside sp");
  EXPECT_EQ(at({2, 2}, 2), "1x2, tp 1x2 inside sp");
  EXPECT_EQ(at({2, 4}, 8), "2x4, tp 2x4 inside sp");
  EXPECT_EQ(at({2, 4}, 4), "1x4, tp 1x4 inside sp");
  EXPECT_EQ(at({2, 4}, 2), "1x2, tp 1x2 inside sp");
  EXPECT_EQ(at({4, 4}, 16), "4x4, tp 4x4 inside sp");
  EXPECT_EQ(at({4, 4}, 4), "1x4, tp 1x4 inside sp");
  EXPECT_EQ(at({4, 4}, 8), "none");
  EXPECT_EQ(at({4, 8}, 32), "4x8, tp 4x8 by columns inside sp");
  EXPECT_EQ(at({4, 8}, 8), "1x8, tp 1x8 inside sp");
  EXPECT_EQ(at({4, 8}, 4), "4x1, tp 4x1 inside sp");
  EXPECT_EQ(at({4, 8}, 16), "none");
  EXPECT_EQ(at({16, 16}, 16), "1x16, tp 1x16 inside sp");
  // Another target has no v5e handler: the generic assignment throughout.
  EXPECT_EQ(runtimeTensorPlacement("my-tpu", {2, 4}, 8).value_or("none"),
            "2x4, tp 2x4 by columns inside sp");
  EXPECT_FALSE(runtimeTensorPlacement("tpu-v5e", {2, 4}, 1));
}

} // namespace

namespace {
/// A DiT-XL/2 PipeFusion pipeline on v5e-8.
struct DiTPipeline {
  int64_t tp, stages, dp;
  std::string name() const {
    return "tp " + std::to_string(tp) + " x " + std::to_string(stages) +
           " stages x dp " + std::to_string(dp);
  }
};
constexpr DiTPipeline kDiTPipelines[] = {{1, 4, 2}, {2, 2, 1}, {1, 8, 1}};

/// DiT-XL/2 on v5e-8 laid out as `c`.
PlanRequest ditRequest(const DiTPipeline &c) {
  PlanRequest request;
  request.problem.model = "dit-xl-2";
  request.problem.topology = "v5e-8";
  request.layout.tp = c.tp;
  request.layout.stages = c.stages;
  request.layout.dataParallel = c.dp;
  return request;
}

/// `c` planned and simulated by its first steps (the repetition proof's or
/// the generated program's schedule) and with every step lowered.
std::pair<PlanOutcome, PlanOutcome> planBothWays(const DiTPipeline &c,
                                                 MLIRContext &context) {
  PlanRequest request = ditRequest(c);
  PlanOptions options;
  PlanOutcome first = planAndSimulate(request.problem,
                                      request.layout.complete(), context,
                                      options);
  options.repetition = false;
  PlanOutcome whole = planAndSimulate(request.problem,
                                      request.layout.complete(), context,
                                      options);
  return {std::move(first), std::move(whole)};
}
} // namespace

// A denoising program simulated by its first steps and the repetition
// proof reports what simulating every step reports, figure for figure, to
// rounding: PipeFusion pipelines whose steps overlap, with and without
// tensor parallelism and data parallelism.
namespace {

/// Every chip's and link's figures of `b` are `r`'s to within rounding
/// (relative 1e-9; idle and busy seconds to 1e-9 of the makespan).
void expectNearFigures(const sim::SimResult &b, const sim::SimResult &r,
                       const std::string &name) {
  auto near = [](double x, double y) {
    return std::abs(x - y) <= 1e-9 * std::max(std::abs(x), std::abs(y));
  };
  ASSERT_EQ(b.chips.size(), r.chips.size()) << name;
  for (size_t i = 0; i < b.chips.size(); ++i) {
    EXPECT_EQ(b.chips[i].id, r.chips[i].id) << name;
    EXPECT_TRUE(near(b.chips[i].computeBusy, r.chips[i].computeBusy))
        << name << " chip " << i;
    EXPECT_TRUE(near(b.chips[i].flops, r.chips[i].flops))
        << name << " chip " << i;
    EXPECT_NEAR(b.chips[i].exposedComm, r.chips[i].exposedComm,
                1e-9 * r.makespan)
        << name << " chip " << i;
    EXPECT_EQ(b.chips[i].peakHbm, r.chips[i].peakHbm) << name;
    EXPECT_EQ(b.chips[i].tasks, r.chips[i].tasks) << name;
  }
  ASSERT_EQ(b.links.size(), r.links.size()) << name;
  std::map<std::pair<int64_t, int64_t>, const sim::LinkStats *> links;
  for (const sim::LinkStats &l : r.links)
    links[{l.from, l.to}] = &l;
  for (const sim::LinkStats &l : b.links) {
    const sim::LinkStats *o = links[{l.from, l.to}];
    ASSERT_NE(o, nullptr) << name;
    EXPECT_TRUE(near(l.bytes, o->bytes)) << name;
    EXPECT_NEAR(l.busy, o->busy, 1e-9 * r.makespan) << name;
  }
}

} // namespace

TEST_F(Planner, ARepeatedRunReportsWhatTheWholeRunReports) {
  for (const DiTPipeline &c : kDiTPipelines) {
    auto [repeated, whole] = planBothWays(c, context);
    std::string name = c.name();
    ASSERT_EQ(repeated.failure, "") << name;
    ASSERT_EQ(whole.failure, "") << name;
    ASSERT_TRUE(repeated.simulated && whole.simulated) << name;
    const sim::SimResult &r = *repeated.simulated, &w = *whole.simulated;
    // The proof ran: fewer steps than the program's.
    EXPECT_GT(r.stepsRun, 0) << name;
    EXPECT_LT(r.stepsRun, repeated.steps) << name;
    EXPECT_EQ(r.programSteps, repeated.steps) << name;
    EXPECT_EQ(w.stepsRun, 0) << name;
    EXPECT_LT(repeated.schedule.chips.front().tasks.size(),
              whole.schedule.chips.front().tasks.size())
        << name;
    auto near = [](double a, double b) {
      return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
    };
    EXPECT_TRUE(near(r.makespan, w.makespan))
        << name << ": " << r.makespan << " vs " << w.makespan;
    // The events as well, each flow run on its own: bundled ring steps
    // (sim::SimOptions) take fewer, the repeated run's from its proof on.
    {
      sim::SimOptions everyFlow;
      everyFlow.everyFlow = true;
      llvm::Expected<TargetDesc> target =
          schedule::getScheduleTarget(repeated.schedule);
      ASSERT_TRUE(bool(target)) << llvm::toString(target.takeError());
      auto re = sim::simulate(*target, repeated.schedule, false,
                              repeated.steps, everyFlow);
      auto we = sim::simulate(*target, whole.schedule, false, 0, everyFlow);
      ASSERT_TRUE(re && we) << name;
      EXPECT_EQ(re->events, we->events) << name;
    }
    expectNearFigures(r, w, name);
  }
}

namespace {

/// Every figure of `g` is `w`'s, to the bit.
void expectSameRun(const sim::SimResult &g, const sim::SimResult &w,
                   const std::string &name) {
  EXPECT_EQ(g.failure, "") << name;
  EXPECT_EQ(g.stepsRun, w.stepsRun) << name;
  EXPECT_EQ(g.makespan, w.makespan) << name;
  EXPECT_EQ(g.events, w.events) << name;
  ASSERT_EQ(g.chips.size(), w.chips.size()) << name;
  for (size_t i = 0; i < g.chips.size(); ++i) {
    EXPECT_EQ(g.chips[i].id, w.chips[i].id) << name;
    EXPECT_EQ(g.chips[i].computeBusy, w.chips[i].computeBusy) << name;
    EXPECT_EQ(g.chips[i].flops, w.chips[i].flops) << name;
    EXPECT_EQ(g.chips[i].exposedComm, w.chips[i].exposedComm) << name;
    EXPECT_EQ(g.chips[i].peakHbm, w.chips[i].peakHbm) << name;
    EXPECT_EQ(g.chips[i].tasks, w.chips[i].tasks) << name;
  }
  ASSERT_EQ(g.links.size(), w.links.size()) << name;
  for (size_t i = 0; i < g.links.size(); ++i) {
    EXPECT_EQ(g.links[i].from, w.links[i].from) << name;
    EXPECT_EQ(g.links[i].to, w.links[i].to) << name;
    EXPECT_EQ(g.links[i].bytes, w.links[i].bytes) << name;
    EXPECT_EQ(g.links[i].busy, w.links[i].busy) << name;
  }
}

} // namespace

// The whole program generated from its first steps (sim::simulateProgram)
// is the run of the whole program lowered, event for event: every figure
// the same to the bit, on PipeFusion pipelines whose steps repeat (the
// proof shortens them; the generated run does not).
TEST_F(Planner, AGeneratedProgramRunsWhatTheWholeProgramRuns) {
  for (const DiTPipeline &c : kDiTPipelines) {
    auto [first, whole] = planBothWays(c, context);
    std::string name = c.name();
    ASSERT_EQ(first.failure, "") << name;
    ASSERT_EQ(whole.failure, "") << name;
    ASSERT_TRUE(whole.simulated) << name;
    // `first` holds its first steps.
    ASSERT_FALSE(first.schedule.stepStarts.empty()) << name;
    int64_t lowered = first.schedule.stepStarts.front().size();
    ASSERT_LT(lowered, first.steps) << name;
    llvm::Expected<TargetDesc> target =
        schedule::getScheduleTarget(first.schedule);
    ASSERT_TRUE(bool(target)) << llvm::toString(target.takeError());
    llvm::Expected<sim::SimResult> generated =
        sim::simulateProgram(*target, first.schedule, first.steps);
    ASSERT_TRUE(bool(generated)) << llvm::toString(generated.takeError());
    ASSERT_FALSE(generated->unproven) << name;
    EXPECT_EQ(generated->generatedFrom, lowered) << name;
    EXPECT_EQ(generated->programSteps, whole.steps) << name;
    expectSameRun(*generated, *whole.simulated, name);
  }
}

// A plan whose steps never repeat (DiT-XL/2 on 2 stages of unequal work,
// 16 patches: the first stage gains on the second every step, so no two
// step starts have the same state; docs/planning.md) is simulated whole,
// generated from its first steps once its program is over the tasks
// lowered whole (here 0), with the figures of the program lowered whole.
TEST_F(Planner, AProgramThatNeverRepeatsIsGeneratedWhole) {
  PlanRequest request;
  request.problem.model = "dit-xl-2";
  request.problem.topology = "v5e-4";
  request.layout.tp = 1;
  request.layout.stages = 2;
  request.layout.slices = SliceSpec::count(16);
  PlanOptions options;
  options.lowerWholeBudget = 0;
  PlanOutcome generated = planAndSimulate(
      request.problem, request.layout.complete(), context, options);
  options.repetition = false;
  options.lowerWholeBudget = kSimulationBudget;
  PlanOutcome whole = planAndSimulate(
      request.problem, request.layout.complete(), context, options);
  ASSERT_EQ(generated.failure, "");
  ASSERT_EQ(whole.failure, "");
  ASSERT_TRUE(generated.simulated && whole.simulated);
  EXPECT_FALSE(generated.unproven);
  // Its first steps ran and did not repeat; then every step, generated
  // from its warm-up and kGeneratedSteps.
  EXPECT_GT(repetitionSteps(generated), 0);
  EXPECT_EQ(generated.simulated->generatedFrom,
            generated.warmup + kGeneratedSteps);
  EXPECT_EQ(generated.simulated->programSteps, generated.steps);
  EXPECT_EQ(whole.simulated->generatedFrom, 0);
  expectSameRun(*generated.simulated, *whole.simulated, "16 patches");
}

namespace {

/// Every figure of `b` is `r`'s to within rounding (relative 1e-9), the
/// repetition proof's the same; the events aside.
void expectNearRun(const sim::SimResult &b, const sim::SimResult &r,
                   const std::string &name) {
  auto near = [](double x, double y) {
    return std::abs(x - y) <= 1e-9 * std::max(std::abs(x), std::abs(y));
  };
  EXPECT_EQ(b.failure, r.failure) << name;
  EXPECT_EQ(b.unproven, r.unproven) << name;
  EXPECT_EQ(b.stepsRun, r.stepsRun) << name;
  EXPECT_EQ(b.repeatedFrom, r.repeatedFrom) << name;
  EXPECT_EQ(b.periodSteps, r.periodSteps) << name;
  EXPECT_EQ(b.generatedFrom, r.generatedFrom) << name;
  EXPECT_TRUE(near(b.period, r.period)) << name;
  EXPECT_TRUE(near(b.makespan, r.makespan))
      << name << ": " << b.makespan << " vs " << r.makespan;
  expectNearFigures(b, r, name);
}

} // namespace

// Ring and line steps run as bundles (the default) or each flow on its own
// (sim::SimOptions::everyFlow) give the same run of a denoising program:
// the repetition proof finds the same period from the same step, and the
// figures, by repetition and generated whole, are the same to rounding.
TEST_F(Planner, BundledStepsProveWhatEveryFlowProves) {
  sim::SimOptions everyFlow;
  everyFlow.everyFlow = true;
  for (const DiTPipeline &c : kDiTPipelines) {
    PlanRequest request = ditRequest(c);
    PlanOutcome first = planAndSimulate(
        request.problem, request.layout.complete(), context, PlanOptions());
    std::string name = c.name();
    ASSERT_EQ(first.failure, "") << name;
    llvm::Expected<TargetDesc> target =
        schedule::getScheduleTarget(first.schedule);
    ASSERT_TRUE(bool(target)) << llvm::toString(target.takeError());
    auto bundled = sim::simulate(*target, first.schedule, false, first.steps);
    auto reference = sim::simulate(*target, first.schedule, false,
                                   first.steps, everyFlow);
    ASSERT_TRUE(bundled && reference) << name;
    EXPECT_GT(bundled->stepsRun, 0) << name;
    expectNearRun(*bundled, *reference, name + " by repetition");
    auto generated =
        sim::simulateProgram(*target, first.schedule, first.steps);
    auto generatedReference = sim::simulateProgram(
        *target, first.schedule, first.steps, everyFlow);
    ASSERT_TRUE(generated && generatedReference) << name;
    expectNearRun(*generated, *generatedReference, name + " generated");
  }
}

// Data-parallel replicas of a denoising pipeline run once for all
// (sim::SimOptions::everyReplica): the repetition proof, the whole
// program generated and the first steps generated report what running
// every chip reports, to the bit, and say how many replicas one run stood
// for.
TEST_F(Planner, ReplicasRunOnceReportWhatEveryChipReports) {
  sim::SimOptions every;
  every.everyReplica = true;
  // (tp 2 x 2 stages x dp 2: the second replica's routes do not pair one
  // for one with the first's, link for link, so every chip runs.)
  for (auto [c, replicas] :
       {std::make_pair(DiTPipeline{1, 4, 2}, 2),
        std::make_pair(DiTPipeline{2, 2, 2}, 1),
        std::make_pair(DiTPipeline{4, 1, 2}, 2)}) {
    PlanRequest request = ditRequest(c);
    PlanOutcome first = planAndSimulate(
        request.problem, request.layout.complete(), context, PlanOptions());
    std::string name = c.name();
    ASSERT_EQ(first.failure, "") << name;
    ASSERT_TRUE(first.simulated) << name;
    EXPECT_EQ(first.simulated->replicas, replicas) << name;
    llvm::Expected<TargetDesc> target =
        schedule::getScheduleTarget(first.schedule);
    ASSERT_TRUE(bool(target)) << llvm::toString(target.takeError());
    auto once = sim::simulate(*target, first.schedule, false, first.steps);
    auto whole =
        sim::simulate(*target, first.schedule, false, first.steps, every);
    ASSERT_TRUE(once && whole) << name;
    EXPECT_EQ(once->replicas, replicas) << name;
    EXPECT_EQ(whole->replicas, 1) << name;
    EXPECT_GT(once->stepsRun, 0) << name;
    EXPECT_EQ(once->repeatedFrom, whole->repeatedFrom) << name;
    EXPECT_EQ(once->period, whole->period) << name;
    expectSameRun(*once, *whole, name + " by repetition");
    auto generated = sim::simulateProgram(*target, first.schedule, first.steps);
    auto generatedWhole =
        sim::simulateProgram(*target, first.schedule, first.steps, every);
    ASSERT_TRUE(generated && generatedWhole) << name;
    EXPECT_EQ(generated->replicas, replicas) << name;
    expectSameRun(*generated, *generatedWhole, name + " generated");
    // With a trace, every chip runs (the trace shows them all).
    auto traced = sim::simulate(*target, first.schedule, true, first.steps);
    ASSERT_TRUE(bool(traced)) << name;
    EXPECT_EQ(traced->replicas, 1) << name;
    EXPECT_EQ(traced->makespan, whole->makespan) << name;
  }
}

// A search runs a denoising program's first steps generated from fewer
// (generatedFirstSteps; sim::simulateByRepetition): the run simulate makes
// of those steps lowered, so the figures, the proof's among them, are the
// single plan's (which lowers them) to the bit, and its schedule holds the
// warm-up and kGeneratedSteps.
TEST_F(Planner, GeneratedFirstStepsRunWhatTheLoweredOnesRun) {
  for (const DiTPipeline &c : kDiTPipelines) {
    std::string name = c.name();
    PlanRequest request = ditRequest(c);
    PlanOptions options;
    options.threads = 1;
    SearchResult search = searchPlans(request, context, options);
    ASSERT_TRUE(search.winner) << name;
    const PlanOutcome &winner = *search.winner;
    ASSERT_EQ(winner.failure, "") << name;
    ASSERT_TRUE(winner.simulated) << name;
    ASSERT_GT(generatedFirstSteps(winner), 0) << name;
    PlanOutcome single = planAndSimulate(
        request.problem, winner.resolvedLayout(), context, PlanOptions());
    ASSERT_EQ(single.failure, "") << name;
    ASSERT_TRUE(single.simulated) << name;
    const sim::SimResult &g = *winner.simulated, &l = *single.simulated;
    EXPECT_EQ(g.repeatedFrom, l.repeatedFrom) << name;
    EXPECT_EQ(g.periodSteps, l.periodSteps) << name;
    EXPECT_EQ(g.period, l.period) << name;
    EXPECT_EQ(g.programSteps, l.programSteps) << name;
    EXPECT_EQ(g.generatedFrom, l.generatedFrom) << name;
    expectSameRun(g, l, name);
    // The search's schedule is the fewer steps; the single plan's the
    // proof's.
    if (g.stepsRun == 0)
      continue;
    ASSERT_FALSE(winner.schedule.stepStarts.empty()) << name;
    EXPECT_EQ(int64_t(winner.schedule.stepStarts.front().size()),
              winner.warmup + kGeneratedSteps)
        << name;
    EXPECT_EQ(int64_t(single.schedule.stepStarts.front().size()),
              repetitionSteps(single))
        << name;
    // The same, asked of the simulator directly.
    llvm::Expected<TargetDesc> target =
        schedule::getScheduleTarget(single.schedule);
    ASSERT_TRUE(bool(target)) << llvm::toString(target.takeError());
    auto direct = sim::simulateByRepetition(
        *target, winner.schedule, repetitionSteps(single), single.steps);
    ASSERT_TRUE(bool(direct)) << llvm::toString(direct.takeError());
    ASSERT_TRUE(direct->has_value()) << name;
    EXPECT_EQ((*direct)->makespan, l.makespan) << name;
    EXPECT_EQ((*direct)->events, l.events) << name;
    // Steps it cannot tell apart (no step starts): nothing runs.
    schedule::Schedule plain = winner.schedule;
    plain.stepStarts.clear();
    auto none = sim::simulateByRepetition(*target, plain,
                                          repetitionSteps(single), single.steps);
    ASSERT_TRUE(bool(none)) << llvm::toString(none.takeError());
    EXPECT_FALSE(none->has_value()) << name;
  }
}
