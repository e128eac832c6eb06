//===- SearchRunner.cpp - plan the candidates, simulate the best ----------===//
//
// The search's runner: every candidate of the search space planned (on
// worker threads, each in an MLIR context of its own, the results taken in
// candidate order so they do not depend on the threads), a second round
// for the expert-group placements of the best layouts, then the best by
// prediction simulated within a budget of tasks and the ranking by the
// simulator where it ran.
//
//===----------------------------------------------------------------------===//

#include "SearchSpace.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>

using namespace mlir;
using namespace loom;

namespace {

/// The other placements of the expert-group layouts that predict best
/// (each group placement moves only its all-to-alls and the tp group's
/// collectives; trying them all on every layout took a batched DeepSeek-V3
/// search on v5e-256 from 25 to 104 s).
constexpr size_t kExpertPlacementRefinements = 4;
/// The pipelined training steps that predict best, tried again with
/// TeraPipe's token slices (docs/training.md, "The search").
constexpr size_t kTokenSliceRefinements = 4;

class SearchRunner {
public:
  SearchRunner(const PlanRequest &request, SearchSpace &space,
               MLIRContext &context, const PlanOptions &options,
               SearchResult &result);
  ~SearchRunner() {
    // The modules must go before their contexts.
    plans.clear();
    shared.shared->imports.clear();
  }

  /// Plans `round` into `plans`, in its order; returns the index in
  /// `plans` of each (none for a refused one).
  std::vector<std::optional<size_t>>
  planRound(const std::vector<ParallelLayout> &round);
  /// Plans the other placements of the best expert-group layouts.
  void refine(const Candidates &candidates,
              const std::vector<std::optional<size_t>> &planIndex);
  /// Plans the best pipelined training steps again with TeraPipe's token
  /// slices, and with equal ones where those predict better still.
  void sliceTokens();
  /// Simulates the best plans by prediction within the budget, drops the
  /// ones the simulator refuses, and ranks the rest by their best
  /// estimate.
  void simulateBest();
  /// The winner as planAndSimulate reports it, and the ranking.
  void finish();
  void dropRefused(const std::vector<bool> &refused);
  void rankByBestEstimate();

  /// Every candidate's steps and the top's simulations, for progress.
  int64_t steps = 0;

private:
  void progress() {
    if (options.progress)
      options.progress(++done, steps);
  }
  void keepModule(size_t index);
  /// Lowers a plan from its kept module, or planned again when it has none
  /// (the kept ones ran out); the target to simulate it on, or none with
  /// `failure` set.
  std::optional<TargetDesc> lowerPlan(Planned &planned);
  /// A plan whose first steps could not be generated from the schedule
  /// lowerPlan lowered (PlanOutcome::lowerFirstSteps): lowered and run.
  void lowerFirstSteps(Planned &planned);
  /// Its module, planned again if it was not kept; false, with `failure`
  /// set, if it cannot be.
  bool planAgain(Planned &planned);

  SearchSpace &space;
  MLIRContext &context;
  const PlanOptions &options;
  /// `options` for the candidates: with what they share.
  PlanOptions shared;
  SearchResult &result;
  int64_t simulateTop, done = 0;
  /// How many planned modules are kept (see the constructor).
  size_t keep;
  std::vector<Planned> plans;
  std::vector<size_t> kept;
  std::vector<std::unique_ptr<MLIRContext>> workerContexts;
  std::optional<llvm::StdThreadPool> pool;
};

} // namespace

SearchRunner::SearchRunner(const PlanRequest &request, SearchSpace &space,
                           MLIRContext &context, const PlanOptions &options,
                           SearchResult &result)
    : space(space), context(context), options(options), shared(options),
      result(result),
      simulateTop(std::max<int64_t>(options.simulateTop, 0)) {
  shared.shared = std::make_shared<SearchShared>();
  // Thousands of candidates through the same passes: each module is
  // verified once, after the pipeline (the passes are verified after each
  // other in every single plan and in the tests).
  shared.verifyEachPass = false;
  shared.shared->workload = space.getWorkload();
  shared.chooseHandover = !request.layout.scatterHandover;
  // The planned modules of the best plans by prediction (within the
  // simulation budget) are kept, so the ones simulated are not planned
  // again: the top ones, room for simulations that fail, and the winner's.
  // Planned modules are small before lowering (the 8 kept for gpt3-175b on
  // v5e-64 add about 1 MB); past 16, a simulation plans again.
  keep = 2 * std::min<int64_t>(simulateTop, 7) + 2;
  if (options.rankOnly && simulateTop == 0)
    keep = 0;
}

void SearchRunner::keepModule(size_t index) {
  if (keep == 0 || plans[index].outcome.simulatedTasks >
                       simulationBudget(plans[index].outcome)) {
    plans[index].module = nullptr;
    return;
  }
  kept.push_back(index);
  if (kept.size() <= keep)
    return;
  auto worst =
      std::max_element(kept.begin(), kept.end(), [&](size_t a, size_t b) {
        return byPrediction(plans[a].outcome, plans[b].outcome);
      });
  plans[*worst].module = nullptr;
  kept.erase(worst);
}

std::vector<std::optional<size_t>>
SearchRunner::planRound(const std::vector<ParallelLayout> &round) {
  // Candidates are planned on `threads` workers, each in a context of its
  // own (diagnostics are captured per context; the kept modules live in
  // them until the search returns), and taken in candidate order, so the
  // result is the one planning them one by one gives. An instrumented
  // search plans on this thread alone: its instrumentation need not be
  // thread-safe.
  if (!pool && workerContexts.empty()) {
    unsigned threads =
        options.instrument
            ? 1
            : llvm::hardware_concurrency(options.threads).compute_thread_count();
    threads = std::max<unsigned>(
        1, std::min<size_t>(threads, std::max<size_t>(round.size(), 1)));
    if (threads > 1) {
      pool.emplace(llvm::hardware_concurrency(threads));
      for (unsigned t = 0; t < threads; ++t) {
        workerContexts.push_back(std::make_unique<MLIRContext>(
            context.getDialectRegistry(), MLIRContext::Threading::DISABLED));
        workerContexts.back()->loadAllAvailableDialects();
      }
    }
  }
  const PlanProblem &problem = space.getProblem();
  std::vector<std::optional<size_t>> where(round.size());
  std::vector<std::optional<Planned>> planned(round.size());
  std::mutex mutex;
  std::condition_variable ready;
  std::atomic<size_t> next = 0;
  for (unsigned t = 0; t < workerContexts.size(); ++t)
    pool->async([&, t] {
      for (size_t i; (i = next++) < round.size();) {
        Planned one = planModule(problem, round[i], *workerContexts[t], shared);
        std::lock_guard<std::mutex> lock(mutex);
        planned[i] = std::move(one);
        ready.notify_all();
      }
    });
  for (size_t i = 0; i < round.size(); ++i) {
    Planned one;
    if (pool) {
      std::unique_lock<std::mutex> lock(mutex);
      ready.wait(lock, [&] { return planned[i].has_value(); });
      one = std::move(*planned[i]);
      planned[i].reset();
    } else {
      one = planModule(problem, round[i], context, shared);
    }
    progress();
    if (!one.outcome.failure.empty()) {
      result.rejected += !round[i].decompose;
      continue;
    }
    where[i] = plans.size();
    plans.push_back(std::move(one));
    keepModule(plans.size() - 1);
  }
  if (pool)
    pool->wait();
  return where;
}

void SearchRunner::refine(const Candidates &candidates,
                          const std::vector<std::optional<size_t>> &planIndex) {
  if (candidates.refinements.empty())
    return;
  auto refinements = candidates.refinements;
  llvm::stable_sort(refinements, [&](const auto &a, const auto &b) {
    const std::optional<size_t> &x = planIndex[a.first],
                                &y = planIndex[b.first];
    if (!x || !y)
      return bool(x) && !y;
    return byPrediction(plans[*x].outcome, plans[*y].outcome);
  });
  std::vector<ParallelLayout> round;
  for (size_t k = 0; k < refinements.size() &&
                     k < kExpertPlacementRefinements &&
                     planIndex[refinements[k].first];
       ++k)
    for (const Placement &placement : refinements[k].second) {
      ParallelLayout placed = candidates.layouts[refinements[k].first];
      placed.placement = placement;
      round.push_back(std::move(placed));
    }
  steps += round.size();
  planRound(round);
}

void SearchRunner::sliceTokens() {
  std::vector<size_t> pipelined;
  for (size_t i = 0; i < plans.size(); ++i)
    if (plans[i].outcome.training && plans[i].outcome.layout.stages > 1)
      pipelined.push_back(i);
  llvm::stable_sort(pipelined, [&](size_t a, size_t b) {
    return byPrediction(plans[a].outcome, plans[b].outcome);
  });
  if (pipelined.size() > kTokenSliceRefinements)
    pipelined.resize(kTokenSliceRefinements);
  std::vector<ParallelLayout> round;
  for (size_t i : pipelined) {
    round.push_back(plans[i].outcome.layout);
    round.back().slices = SliceSpec();
  }
  steps += round.size();
  size_t first = plans.size();
  planRound(round);
  // TeraPipe's slicing minimises its closed form; the schedule played may
  // favour equal slices (the report's comparison).
  std::vector<ParallelLayout> equal;
  for (size_t i = first; i < plans.size(); ++i) {
    const PlanOutcome &p = plans[i].outcome;
    if (p.sliceBaselines && p.sliceBaselines->equalSlices > 0 &&
        p.sliceBaselines->equal < p.predicted) {
      equal.push_back(p.layout);
      equal.back().slices = SliceSpec::count(p.sliceBaselines->equalSlices);
    }
  }
  steps += equal.size();
  planRound(equal);
}

bool SearchRunner::planAgain(Planned &planned) {
  if (planned.module)
    return true;
  Planned again = planModule(planned.outcome.problem, planned.outcome.layout,
                             context, shared);
  if (!again.module) {
    planned.outcome.failure = again.outcome.failure;
    return false;
  }
  planned.module = std::move(again.module);
  return true;
}

std::optional<TargetDesc> SearchRunner::lowerPlan(Planned &planned) {
  if (!planAgain(planned))
    return std::nullopt;
  // Without a trace, a denoising program's first steps run generated from
  // fewer (generatedFirstSteps).
  return lower(planned, /*whole=*/false,
               options.trace ? 0 : generatedFirstSteps(planned.outcome));
}

void SearchRunner::lowerFirstSteps(Planned &planned) {
  if (!planned.outcome.lowerFirstSteps)
    return;
  planned.outcome.lowerFirstSteps = false;
  planned.outcome.schedule = {};
  if (std::optional<TargetDesc> desc = lower(planned))
    simulateSchedule(planned.outcome, *desc, /*trace=*/false);
}

void SearchRunner::simulateBest() {
  std::stable_sort(plans.begin(), plans.end(),
                   [](const Planned &a, const Planned &b) {
                     return byPrediction(a.outcome, b.outcome);
                   });
  int64_t simulated = 0;
  // Only the best simulated plan so far keeps its schedule (the winner's
  // report, trace and timeline need it; a ranked plan does not): a large
  // program's schedule takes hundreds of MB.
  std::optional<size_t> bestSimulated;
  // The search's simulations share one budget of tasks, so a search takes
  // about the seconds and memory of one plan's simulation at most (the
  // best plans of a large DiT each come near the budget).
  double budgetLeft = options.searchSimulationBudget;
  // In prediction order, the plans within their budget are simulated
  // while the budget lasts, until simulateTop of them ran; one the
  // simulator refuses (an HBM overflow, say) does not fit and does not
  // count. The plans the next steps would simulate, were none refused, run
  // at once (lowered here, simulated on the workers); their outcomes are
  // then taken in order, so the result is that of one at a time.
  std::vector<bool> refused(plans.size(), false);
  size_t i = 0;
  while (i < plans.size() && simulated < simulateTop) {
    SmallVector<size_t> batch;
    double left = budgetLeft;
    for (size_t k = i; k < plans.size() &&
                       simulated + int64_t(batch.size()) < simulateTop;
         ++k) {
      double tasks = plans[k].outcome.simulatedTasks;
      if (tasks > simulationBudget(plans[k].outcome))
        continue;
      if (tasks > left)
        break;
      left -= tasks;
      batch.push_back(k);
    }
    if (batch.empty())
      break;
    // Each is simulated as soon as it is lowered, while the next lowers.
    std::vector<std::optional<TargetDesc>> targets(batch.size());
    auto run = [&](size_t b) {
      if (targets[b])
        simulateSchedule(plans[batch[b]].outcome, *targets[b],
                         /*trace=*/false);
    };
    for (size_t b = 0; b < batch.size(); ++b) {
      targets[b] = lowerPlan(plans[batch[b]]);
      if (pool && batch.size() > 1)
        pool->async(run, b);
      else
        run(b);
    }
    if (pool && batch.size() > 1)
      pool->wait();
    for (size_t k : batch)
      lowerFirstSteps(plans[k]);
    // The plans whose first steps did not repeat run their whole program
    // last, once the others have given up the schedules they no longer
    // need and the unproven ones' first steps are freed: one whole
    // program at a time beside the best schedule so far (sd35-medium on
    // v5e-64 peaked at 2.1 GB holding them all).
    SmallVector<size_t> order;
    for (size_t k : batch)
      if (!plans[k].outcome.unproven)
        order.push_back(k);
    for (size_t k : batch)
      if (plans[k].outcome.unproven) {
        order.push_back(k);
        plans[k].outcome.schedule = {}; // its first steps, done with
      }
    for (size_t k : order) {
      budgetLeft -= plans[k].outcome.simulatedTasks;
      // No repetition found in the first steps: the whole program, when
      // it is within the per-plan limit (one over it waits: it runs
      // generated from its first steps when it leads the ranking, below).
      if (plans[k].outcome.unproven)
        budgetLeft -= finishUnproven(plans[k], /*trace=*/false,
                                     /*generate=*/false);
      plans[k].module = nullptr;
      progress();
      if (!plans[k].outcome.simulated && plans[k].outcome.failure.empty())
        continue; // cannot be simulated (beyondSimulator)
      if (!plans[k].outcome.failure.empty()) {
        refused[k] = true;
        plans[k].outcome.schedule = {};
        ++result.rejected;
        continue;
      }
      auto makespan = [&](size_t j) {
        return plans[j].outcome.simulated->makespan;
      };
      if (!bestSimulated || makespan(k) < makespan(*bestSimulated)) {
        if (bestSimulated)
          plans[*bestSimulated].outcome.schedule = {};
        bestSimulated = k;
      } else {
        plans[k].outcome.schedule = {};
      }
      ++simulated;
    }
    i = batch.back() + 1;
  }
  dropRefused(refused);
  rankByBestEstimate();
  // The winner is simulated: while the best by the ranking was not
  // simulated (the budget ran out before it, or it ranked below the
  // simulated ones by prediction), it is, and the ranking is taken again.
  // Each round simulates one plan the ranking would otherwise show
  // unproven at the top, or finds that the simulator cannot run it (its
  // steps not repeating, nor alike enough to generate its program from),
  // which the ranking then puts after the plans it can run. Only when the
  // simulator can run none (or the search simulates nothing, or its budget
  // is smaller than the plan) does the winner go unsimulated, as the
  // report says.
  while (simulateTop > 0 && !plans.empty() &&
         !plans.front().outcome.simulated &&
         !beyondSimulator(plans.front().outcome) &&
         plans.front().outcome.simulatedTasks <=
             options.searchSimulationBudget) {
    Planned &front = plans.front();
    if (front.outcome.unproven) {
      // Its first steps ran and did not repeat: its whole program.
      if (planAgain(front))
        finishUnproven(front, /*trace=*/false);
    } else if (std::optional<TargetDesc> desc = lowerPlan(front)) {
      simulateSchedule(front.outcome, *desc, /*trace=*/false);
      lowerFirstSteps(front);
      if (front.outcome.unproven)
        finishUnproven(front, /*trace=*/false);
    }
    front.module = nullptr;
    progress();
    std::vector<bool> gone(plans.size(), false);
    if (!front.outcome.failure.empty()) {
      gone[0] = true;
      ++result.rejected;
    } else if (!front.outcome.simulated) {
      // Unproven and too large, or its steps not alike enough to generate
      // its program from: ranked after the plans the simulator can run.
      front.outcome.simulationFailed = true;
    } else if (bestSimulated) {
      // Only the best simulated plan keeps its schedule.
      auto best = std::find_if(plans.begin() + 1, plans.end(),
                               [](const Planned &p) {
                                 return !p.outcome.schedule.chips.empty();
                               });
      if (best != plans.end()) {
        if (best->outcome.simulated->makespan <=
            front.outcome.simulated->makespan)
          front.outcome.schedule = {};
        else
          best->outcome.schedule = {};
      }
    }
    dropRefused(gone);
    rankByBestEstimate();
  }
}

void SearchRunner::dropRefused(const std::vector<bool> &refused) {
  size_t fit = 0;
  for (size_t k = 0; k < plans.size(); ++k)
    if (!refused[k]) {
      if (fit != k)
        plans[fit] = std::move(plans[k]);
      ++fit;
    }
  plans.resize(fit);
}

void SearchRunner::rankByBestEstimate() {
  // By the best estimate of each: the simulator's time where it ran, the
  // cost model's otherwise; the plans the simulator cannot run last, so
  // that the winner is a plan it ran (Loom's plans are proven on the
  // simulator). The report names one of those that predicts faster than
  // the winner (printSearchTable).
  std::stable_sort(plans.begin(), plans.end(),
                   [](const Planned &a, const Planned &b) {
                     bool x = beyondSimulator(a.outcome),
                          y = beyondSimulator(b.outcome);
                     if (x != y)
                       return y;
                     auto time = [](const PlanOutcome &p) {
                       return p.simulated ? p.simulated->makespan : p.predicted;
                     };
                     return time(a.outcome) < time(b.outcome);
                   });
}

void SearchRunner::finish() {
  if (!options.rankOnly && !plans.empty()) {
    // The winner as planAndSimulate reports it: simulated when the policy
    // says so, even if the ranking did not simulate it; a trace needs a
    // run that records one.
    Planned &best = plans.front();
    schedule::Schedule program = std::move(best.outcome.schedule);
    Planned winner{best.outcome, std::move(best.module)};
    winner.outcome.schedule = std::move(program);
    // (A plan whose first steps were run and did not repeat, its whole
    // program over the limit, is not run again.)
    if (!winner.outcome.simulated && !winner.outcome.unproven &&
        shouldSimulate(winner.outcome, options.simulate)) {
      if (std::optional<TargetDesc> desc = lowerPlan(winner)) {
        simulateSchedule(winner.outcome, *desc, options.trace);
        lowerFirstSteps(winner);
        if (winner.outcome.unproven)
          finishUnproven(winner, options.trace);
      }
    } else if (winner.outcome.simulated && options.trace) {
      // The same run again, recording (the same proof, when it repeats).
      simulateSchedule(winner.outcome, space.getTarget(), /*trace=*/true);
    }
    result.winner = std::move(winner.outcome);
  }
  // (Reserved: PlanOutcome's move may throw, so a growing vector would
  // copy every outcome.)
  result.ranked.reserve(plans.size());
  for (Planned &planned : plans)
    result.ranked.push_back(std::move(planned.outcome));
}

SearchResult loom::searchPlans(const PlanRequest &request, MLIRContext &context,
                               const PlanOptions &options) {
  SearchResult result;
  std::optional<SearchSpace> space = SearchSpace::build(request, context);
  if (!space)
    return result;
  // Every candidate first, so that progress can say of how many.
  Candidates candidates = space->candidates();
  SearchRunner runner(request, *space, context, options, result);
  runner.steps = candidates.layouts.size() +
                 std::min<int64_t>(std::max<int64_t>(options.simulateTop, 0),
                                   candidates.layouts.size());
  runner.refine(candidates, runner.planRound(candidates.layouts));
  runner.sliceTokens();
  runner.simulateBest();
  runner.finish();
  return result;
}
