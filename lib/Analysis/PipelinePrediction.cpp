//===- PipelinePrediction.cpp - closed-form pipeline player ---------------===//

#include "loom/Analysis/PipelinePrediction.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace loom;

PipelinePrediction loom::playPipeline(ArrayRef<PipelineUnit> units,
                                      int64_t steps, int64_t warmup) {
  PipelinePrediction prediction;
  if (units.empty())
    return prediction;
  int64_t stages = units.front().work.size();
  SmallVector<double> free(stages, 0.0), busy(stages, 0.0);
  // When each unit of the previous step left the last stage.
  SmallVector<double> left(units.size(), 0.0), leaving(units.size(), 0.0);
  // The state after the previous step (each stage's free time, then each
  // unit's leaving time) and the stages' busy time then.
  SmallVector<double> previous, state;
  SmallVector<double> busyBefore;
  for (int64_t step = 0; step < steps; ++step) {
    for (auto [i, unit] : llvm::enumerate(units)) {
      double arrived = 0;
      if (step > 0 && stages > 1) {
        // Back from the last stage; during warm-up, all of the last step.
        bool barrier = step - 1 < warmup;
        arrived = (barrier ? *llvm::max_element(left) : left[i]) +
                  unit.handover[0];
      }
      for (int64_t s = 0; s < stages; ++s) {
        if (s > 0)
          arrived += unit.handover[s];
        double start = std::max(arrived, free[s]);
        free[s] = arrived = start + unit.work[s];
        busy[s] += unit.work[s];
      }
      leaving[i] = arrived;
    }
    std::swap(left, leaving);
    // Past the warm-up every step is the same max-plus map of the state
    // before it (each stage's free time and each unit's return), so once a
    // step shifts the whole state by one delta, every later step shifts it
    // by the same delta: the rest are added, not played (a long video's
    // thousands of patches over 50 steps would otherwise cost seconds per
    // prediction).
    state.assign(free.begin(), free.end());
    state.append(left.begin(), left.end());
    if (step > warmup && !previous.empty()) {
      double delta = state.front() - previous.front();
      double scale = std::max(1.0, std::abs(state.back()));
      bool periodic = llvm::all_of(llvm::seq<size_t>(0, state.size()),
                                   [&](size_t k) {
                                     return std::abs(state[k] - previous[k] -
                                                     delta) <= 1e-12 * scale;
                                   });
      if (periodic) {
        double rest = double(steps - 1 - step);
        for (int64_t s = 0; s < stages; ++s) {
          free[s] += rest * delta;
          busy[s] += rest * (busy[s] - busyBefore[s]);
        }
        break;
      }
    }
    previous = state;
    busyBefore.assign(busy.begin(), busy.end());
  }
  prediction.seconds = free[stages - 1];
  if (prediction.seconds > 0)
    prediction.bubble = 1 - *llvm::max_element(busy) / prediction.seconds;
  return prediction;
}

double loom::playInterleaved(ArrayRef<SmallVector<TaskTime>> chains) {
  size_t n = chains.size();
  // The compute tasks in zipped order: (unit, task).
  SmallVector<std::pair<size_t, size_t>> order;
  size_t longest = 0;
  for (const SmallVector<TaskTime> &chain : chains)
    longest = std::max(longest, chain.size());
  for (size_t i = 0; i < longest; ++i)
    for (size_t u = 0; u < n; ++u)
      if (i < chains[u].size() && !chains[u][i].collective)
        order.push_back({u, i});
  // Per unit: its next task and whether that task runs; per running
  // collective, the fraction of it left.
  SmallVector<size_t> next(n, 0);
  SmallVector<bool> running(n, false);
  SmallVector<double> left(n, 0);
  size_t pc = 0;
  double now = 0, coreEnd = 0;
  int64_t onCore = -1;
  const double inf = std::numeric_limits<double>::infinity();
  while (true) {
    // Start whatever may start now.
    for (size_t u = 0; u < n; ++u)
      if (!running[u] && next[u] < chains[u].size() &&
          chains[u][next[u]].collective) {
        running[u] = true;
        left[u] = 1;
      }
    if (onCore < 0 && pc < order.size()) {
      auto [u, i] = order[pc];
      if (!running[u] && next[u] == i) {
        running[u] = true;
        onCore = u;
        coreEnd = now + chains[u][i].seconds;
        ++pc;
      }
    }
    // The next end: the core's, or the first collective's at its share.
    // A collective alone takes its seconds: its steps' latencies L and
    // transfers B. Beside others, its transfers share the links with theirs
    // but not with their latencies, when the links are theirs alone: it
    // takes L + B (1 + sum of the others' busy fractions), a collective's
    // busy fraction being its transfers' share of its span (a fixed point;
    // three rounds settle it). loom-sim's flows give every transfer on a
    // link an equal share and run each step's latency after its transfer.
    SmallVector<double> spans(n, 0), busy(n, 0);
    for (size_t u = 0; u < n; ++u)
      busy[u] = running[u] && int64_t(u) != onCore;
    // (Collectives on different axes of a 2-D block share no links.)
    auto share = [&](size_t u, size_t v) {
      int a = chains[u][next[u]].links, b = chains[v][next[v]].links;
      return a < 0 || b < 0 || a == b;
    };
    for (int round = 0; round < 3; ++round) {
      for (size_t u = 0; u < n; ++u) {
        if (!running[u] || int64_t(u) == onCore)
          continue;
        double others = 0;
        for (size_t v = 0; v < n; ++v)
          if (v != u && busy[v] > 0 && share(u, v))
            others += busy[v];
        const TaskTime &task = chains[u][next[u]];
        double transfer = task.seconds - task.latency;
        spans[u] = task.latency + transfer * (1 + others);
      }
      for (size_t u = 0; u < n; ++u)
        if (running[u] && int64_t(u) != onCore)
          busy[u] = spans[u] > 0 ? (spans[u] - chains[u][next[u]].latency) /
                                       spans[u]
                                 : 0;
    }
    auto span = [&](size_t u) { return spans[u]; };
    double until = onCore >= 0 ? coreEnd : inf;
    int64_t first = -1; // the collective that ends first, if before the core
    for (size_t u = 0; u < n; ++u)
      if (running[u] && int64_t(u) != onCore &&
          now + left[u] * span(u) < until) {
        until = now + left[u] * span(u);
        first = u;
      }
    if (until == inf)
      break;
    for (size_t u = 0; u < n; ++u)
      if (running[u] && int64_t(u) != onCore) {
        double whole = span(u);
        left[u] = whole > 0 ? left[u] - (until - now) / whole : 0;
        // The first to end ends exactly (rounding must not keep it alive).
        if (int64_t(u) == first || left[u] <= 1e-12) {
          running[u] = false;
          ++next[u];
        }
      }
    now = until;
    if (onCore >= 0 && coreEnd <= now) {
      running[onCore] = false;
      ++next[onCore];
      onCore = -1;
    }
  }
  return now;
}

PipelinePrediction loom::playVirtualStages(ArrayRef<PipelineUnit> units,
                                           int64_t stages) {
  PipelinePrediction prediction;
  if (units.empty() || stages < 1)
    return prediction;
  int64_t chunks = units.front().work.size();
  int64_t v = chunks / stages;
  int64_t n = units.size();
  // Each stage's program: groups of K units; per group, chunk s for each
  // unit, then chunk s + K for each, ... (Megatron's order).
  SmallVector<SmallVector<std::pair<int64_t, int64_t>>> program(stages);
  for (int64_t first = 0; first < n; first += stages)
    for (int64_t j = 0; j < v; ++j)
      for (int64_t s = 0; s < stages; ++s)
        for (int64_t u = first; u < std::min(first + stages, n); ++u)
          program[s].push_back({u, j * stages + s});
  // done[u][c]: when unit u's chunk c ends (negative: not yet played).
  std::vector<std::vector<double>> done(n, std::vector<double>(chunks, -1));
  SmallVector<size_t> next(stages, 0);
  SmallVector<double> free(stages, 0.0), busy(stages, 0.0);
  // Play each stage as far as its next task's input has been computed; the
  // order is deadlock-free (a unit's chunk c - 1 comes earlier in the
  // order (group, round, unit + stage)), so every sweep advances.
  for (bool progressed = true; progressed;) {
    progressed = false;
    for (int64_t s = 0; s < stages; ++s)
      while (next[s] < program[s].size()) {
        auto [u, c] = program[s][next[s]];
        double arrived = 0;
        if (c > 0) {
          if (done[u][c - 1] < 0)
            break;
          arrived = done[u][c - 1] + units[u].handover[c];
        }
        double start = std::max(arrived, free[s]);
        free[s] = done[u][c] = start + units[u].work[c];
        busy[s] += units[u].work[c];
        ++next[s];
        progressed = true;
      }
  }
  prediction.seconds = *llvm::max_element(free);
  if (prediction.seconds > 0)
    prediction.bubble = 1 - *llvm::max_element(busy) / prediction.seconds;
  return prediction;
}

SmallVector<std::pair<int64_t, int64_t>>
loom::pipelineUnits(PipelineAttr pipeline) {
  bool patches = pipeline.getMode() == PipelineMode::patches;
  SmallVector<std::pair<int64_t, int64_t>> units;
  for (int64_t m = 0; m < pipeline.getMicrobatches(); ++m) {
    int64_t context = 0;
    for (int64_t length : pipeline.getSlices()) {
      units.push_back({length, patches ? 0 : context});
      context += length;
    }
  }
  return units;
}

PipelinePrediction loom::predictPipeline(
    const StageSliceCost &cost, PipelineAttr pipeline,
    llvm::function_ref<double(int64_t stage, int64_t length)> transfer,
    int64_t interleave) {
  bool patches = pipeline.getMode() == PipelineMode::patches;
  // Patches see no earlier context; slices see the ones before them in
  // their microbatch.
  SmallVector<std::pair<int64_t, int64_t>> all = pipelineUnits(pipeline);
  auto handover = [&](int64_t s, int64_t length) {
    return transfer ? transfer(s, length) : cost.transferSeconds(s, length);
  };
  SmallVector<PipelineUnit> units;
  // Each unit on each stage (with virtual stages, each chunk: a layer's
  // stage), its handover into it; equal units cost the same, so only the
  // first is priced.
  auto priceEach = [&](bool firstFree) {
    for (auto [i, unit] : llvm::enumerate(all)) {
      if (i > 0 && unit == all[i - 1]) {
        units.push_back(units.back());
        continue;
      }
      PipelineUnit &next = units.emplace_back();
      for (int64_t s = 0; s < cost.getStages(); ++s) {
        next.work.push_back(cost.stageSeconds(s, unit.first, unit.second));
        next.handover.push_back(firstFree && s == 0 ? 0.0
                                                    : handover(s, unit.first));
      }
    }
  };
  if (pipeline.getVirtualStages() > 1) {
    // Chunk c runs on stage c mod K and its handover comes from stage
    // (c - 1) mod K, round the ring; the first chunk's input is at hand.
    priceEach(/*firstFree=*/true);
    return playVirtualStages(units, pipeline.getStages());
  }
  if (interleave > 1) {
    // Groups of `interleave` units, each played zipped on every stage.
    for (size_t first = 0; first < all.size(); first += interleave) {
      size_t end = std::min<size_t>(first + interleave, all.size());
      PipelineUnit &group = units.emplace_back();
      for (int64_t s = 0; s < cost.getStages(); ++s) {
        SmallVector<SmallVector<TaskTime>> chains;
        for (size_t i = first; i < end; ++i)
          chains.push_back(cost.stageTasks(s, all[i].first, all[i].second));
        group.work.push_back(playInterleaved(chains));
        group.handover.push_back(handover(s, all[end - 1].first));
      }
    }
  } else {
    priceEach(/*firstFree=*/false);
  }
  if (!patches)
    return playPipeline(units, 1, 0);
  return playPipeline(units, std::max<int64_t>(pipeline.getSteps(), 1),
                      pipeline.getWarmup());
}
